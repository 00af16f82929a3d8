/**
 * `recall doctor`: checks sources, index, vectors, model or endpoint, and Claude Code's cleanup period; prints
 * OK / WARN / FAIL lines with fixes (or one JSON object) on stdout and exits 1 when any check fails.
 * Never re-indexes; loads the model only with --check-model.
 */
import { command, flag, option, optional, string } from "cmd-ts";
import { homedir } from "node:os";
import { RecallError } from "../errors.ts";
import { resolveRecallHome } from "../index/index.ts";
import { resolveSourceRoots } from "../parsers/index.ts";
import { sourceArgs } from "./context.ts";
import { writeOut } from "../render/terminal.ts";

/** The `doctor` subcommand. */
export const doctorCommand = command({
  name: "doctor",
  description: "Check sources, index health, vectors, the embedding model or endpoint, and Claude Code's cleanup period",
  args: {
    checkModel: flag({ long: "check-model", description: "Also load the local model and embed a probe text (slower)" }),
    model: option({ long: "model", type: optional(string), description: "Model preset name or .gguf path to check (default: RECALL_MODEL or the default preset)" }),
    json: flag({ long: "json", description: "Print one JSON object: {\"ok\": bool, \"checks\": [{id, status, message, fix}]}" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    // Loaded on use: the checks pull in the embed and vector layers, which `recall --help` should not parse.
    const { renderDoctorJson, renderDoctorText, runDoctor } = await import("../doctor/index.ts");
    const { roots } = resolveSourceRoots({ "claude-code": args.claudeDir, opencode: args.opencodeDir });
    const results = await runDoctor({
      recallHome: resolveRecallHome(),
      roots,
      env: process.env,
      home: process.env.HOME || homedir(),
      loadModel: args.checkModel,
      modelFlag: args.model,
    });
    writeOut(args.json ? `${renderDoctorJson(results)}\n` : renderDoctorText(results));
    const failed = results.filter((result) => result.status === "fail");
    if (failed.length > 0) {
      throw new RecallError(failed[0]!.errorCode ?? "INTERNAL", `doctor: ${failed.length} check(s) failed (${failed.map((result) => result.id).join(", ")})`, { hint: "run the fix shown under each FAIL line" });
    }
    return 0;
  },
});
