/**
 * `recall doctor`: checks sources, folders, index, snapshot, vectors, model or endpoint, and Claude Code's cleanup
 * period; prints OK / WARN / FAIL lines with fixes (or one JSON object) on stdout and exits 1 when any check fails.
 * Never re-indexes; loads the model only with --check-model. `--restore-snapshot` puts the last snapshot back
 * instead of checking (the replaced index is kept aside) and names the next command.
 */
import { command, flag, option, optional, string } from "cmd-ts";
import { homedir } from "node:os";
import { RecallError } from "../errors.ts";
import { prepareRecallPaths } from "../index/index.ts";
import { resolveSourceRoots } from "../parsers/index.ts";
import { sourceArgs, sourceFlags, warn } from "./context.ts";
import { writeOut } from "../render/terminal.ts";

/** The `doctor` subcommand. */
export const doctorCommand = command({
  name: "doctor",
  description: "Check sources, folders, index health, its snapshot, vectors, the embedding model or endpoint, and Claude Code's cleanup period",
  args: {
    checkModel: flag({ long: "check-model", description: "Also load the local model and embed a probe text (slower)" }),
    model: option({ long: "model", type: optional(string), description: "Model preset name or .gguf path to check (default: RECALL_MODEL or the default preset)" }),
    json: flag({ long: "json", description: "Print one JSON object: {\"ok\": bool, \"checks\": [{id, status, message, fix}]}" }),
    restoreSnapshot: flag({ long: "restore-snapshot", description: "Replace the index with its last snapshot (kept daily by `recall index`; the replaced file is kept aside as index.sqlite.damaged-<time>), then run `recall index`" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    // Loaded on use: the checks pull in the embed and vector layers, which `recall --help` should not parse.
    const doctor = await import("../doctor/index.ts");
    const paths = prepareRecallPaths(process.env, { onNotice: (line) => warn(`recall: ${line}`) });
    if (args.restoreSnapshot) {
      const restored = await doctor.restoreLastSnapshot(paths.data);
      writeOut(args.json ? `${doctor.renderRestoreJson(restored)}\n` : doctor.renderRestoreText(restored));
      return 0;
    }
    const { renderDoctorJson, renderDoctorText, runDoctor } = doctor;
    const { roots } = resolveSourceRoots(sourceFlags(args));
    const results = await runDoctor({
      recallHome: paths.data,
      paths,
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
