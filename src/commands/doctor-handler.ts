/**
 * What `recall doctor` does (its flags and help: doctor.ts): prints OK / WARN / FAIL lines with fixes (or one JSON
 * object) on stdout and exits 1 when any check fails. Never re-indexes; loads the model only with --check-model.
 * `--restore-snapshot` puts the last snapshot back instead of checking (the replaced index is kept aside) and names
 * the next command.
 */
import { homedir } from "node:os";
import { RecallError } from "../errors.ts";
import {
  restoreLastSnapshot,
  renderDoctorJson,
  renderDoctorText,
  renderRestoreJson,
  renderRestoreText,
  runDoctor,
} from "../doctor/index.ts";
import { prepareRecallPaths } from "../index/index.ts";
import { resolveSourceRoots } from "../parsers/index.ts";
import { countOf } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { warn } from "../service/context.ts";
import { sourceFlags } from "../service/source-args.ts";
import type { DoctorArgs } from "./doctor.ts";

/** Runs `recall doctor` with its parsed arguments; resolves to 0, or throws the first failed check's error (exit 1). */
export async function doctor(args: DoctorArgs): Promise<number> {
  const paths = prepareRecallPaths(process.env, { onNotice: (line) => warn(`recall: ${line}`) });
  if (args.restoreSnapshot) {
    const restored = await restoreLastSnapshot(paths.data);
    writeOut(args.json ? `${renderRestoreJson(restored)}\n` : renderRestoreText(restored));
    return 0;
  }
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
    throw new RecallError(
      failed[0]!.errorCode ?? "INTERNAL",
      `doctor: ${countOf(failed.length, "check")} failed (${failed.map((result) => result.id).join(", ")})`,
      { hint: "run the fix shown under each FAIL line" },
    );
  }
  return 0;
}
