import { describe, expect, test } from "bun:test";
import { lintSource } from "@secretlint/core";
import { creator as recommended, rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import { claudeCodeParser, unitForContainer } from "../../src/parsers/claude-code.ts";
import {
  findLibrarySecrets,
  runnerRuleIds,
  windowedRuleIds,
  type LibraryFinding,
} from "../../src/redact/secretlint.ts";
import { claudeCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import { plantedSecrets } from "../helpers/secrets.ts";

const presetIds = (presetRules as unknown as Array<{ meta: { id: string } }>).map((rule) => rule.meta.id);
const skipped = ["@secretlint/secretlint-rule-filter-comments", "@secretlint/secretlint-rule-gcp"];

/** A finding as a comparable key: the rule's message id and the secret it names. */
const keyOf = (finding: { messageId?: string; data?: unknown }) =>
  `${finding.messageId} ${JSON.stringify(finding.data)}`;
const keysOf = (findings: readonly LibraryFinding[]) => findings.map(keyOf).sort();

/** Secrets in text the way a session has them: between prose, code and log lines. */
const mixed = plantedSecrets
  .map((planted, i) => `line ${i} of the log: build_step_${i} ok\n${planted.carrier}\nnext_token_count=${i}`)
  .join("\n\n");

describe("secretlint runner (issue 9)", () => {
  test("runs every recommended rule except the comment filter and the path-based GCP rule", () => {
    expect(runnerRuleIds()).toEqual(presetIds.filter((id) => !skipped.includes(id)));
    // A renamed or removed rule after an upgrade would leave a window rule that runs nothing.
    for (const id of windowedRuleIds) expect(presetIds).toContain(id);
  });

  test("finds exactly what secretlint's own async lintSource finds, synchronously", async () => {
    const result = await lintSource({
      source: { content: mixed, filePath: "session.txt", contentType: "text" },
      options: {
        noPhysicFilePath: true,
        config: {
          rules: [
            {
              id: "@secretlint/secretlint-rule-preset-recommend",
              rule: recommended,
              rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
            },
          ],
        },
      },
    });
    const theirs = result.messages
      .filter((message) => !skipped.includes(message.ruleId))
      .map(keyOf)
      .sort();
    expect(theirs.length).toBeGreaterThan(20);
    expect(keysOf(findLibrarySecrets(mixed, { windowed: false }))).toEqual(theirs);
  });

  test("reading only the windows finds what reading whole texts finds, at the same places", () => {
    const texts = [
      mixed,
      ...plantedSecrets.map((planted) => planted.carrier),
      plantedSecrets.map((planted) => planted.carrier).join(" "),
    ];
    for (const text of texts) {
      const sorted = (findings: LibraryFinding[]) => findings.map((f) => `${f.start}-${f.end} ${keyOf(f)}`).sort();
      expect(sorted(findLibrarySecrets(text))).toEqual(sorted(findLibrarySecrets(text, { windowed: false })));
    }
  });

  test.skipIf(!hasCorpus)(
    "windows find what whole texts find on every text of the real corpus (needs ../shared/corpus)",
    () => {
      const units = claudeCodeParser.scan(claudeCorpusRoots()).containers.map(unitForContainer);
      let texts = 0;
      for (const unit of units) {
        const result = claudeCodeParser.parse(unit, { withOutputs: true });
        const all = result.turns
          .flatMap((turn) => [
            turn.prompt,
            turn.response,
            ...turn.toolCalls.flatMap((call) => [call.input, call.output ?? ""]),
          ])
          .join("\n");
        expect(keysOf(findLibrarySecrets(all))).toEqual(keysOf(findLibrarySecrets(all, { windowed: false })));
        texts++;
      }
      expect(texts).toBeGreaterThan(10);
    },
  );
});
