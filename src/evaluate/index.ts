/**
 * Measuring recall on the user's own history (issue 43): labelled queries from commit messages and agent-written
 * titles (labels.ts), measured with their own text withheld (withhold.ts, measure.ts), and tuning per install
 * (tune.ts). Used by `recall eval` (commands/eval-handler.ts).
 */
export {
  countLabelledSessions,
  findLabels,
  labelKinds,
  readStoredLabels,
  storeLabels,
  type Label,
  type LabelKind,
} from "./labels.ts";
export {
  measureLabels,
  scoreLevel,
  type LabelOutcome,
  type LevelReport,
  type GroupScores,
} from "./measure.ts";
export {
  tuneOnLabels,
  storeTuning,
  removeTuning,
  type TuneReport,
} from "./tune.ts";
