import fs from "node:fs";
import path from "node:path";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintRuleContext, SecretLintRuleCreator } from "@secretlint/types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanText, findSecrets } from "../lib/secrets";
import { mayHoldPresetSecret, PRESET_PREFILTERED, PRESET_PREFIXES } from "../lib/secrets/scan";
import { LOOK_ALIKES, SECRET_SAMPLES, embed, embeddingOf, secretPartOf } from "./fixtures/secrets/corpus";

describe("the secret scanner on the corpus", () => {
  it("catches every secret sample in every embedding and flags no look-alike", () => {
    const missed: string[] = [];
    let caught = 0;
    for (const sample of SECRET_SAMPLES) {
      for (const how of ["prose", "code", "json", "yaml"] as const) {
        const text = embed(sample, how);
        const cleaned = cleanText("content", text);
        if (cleaned.text.includes(secretPartOf(sample))) missed.push(`${sample.name} (${how})`);
        else caught += 1;
      }
    }
    const falseAlarms = LOOK_ALIKES.filter((text) => findSecrets(text).length > 0);
    console.log(`secrets corpus: caught ${caught}/${SECRET_SAMPLES.length * 4} (${SECRET_SAMPLES.length} samples × 4 embeddings); false alarms ${falseAlarms.length}/${LOOK_ALIKES.length}`);
    expect(SECRET_SAMPLES.length).toBeGreaterThanOrEqual(30);
    expect(LOOK_ALIKES.length).toBeGreaterThanOrEqual(30);
    expect(missed).toEqual([]);
    expect(falseAlarms.map((text) => `${text.slice(0, 60)} → ${findSecrets(text).map((hit) => hit.kind).join(",")}`)).toEqual([]);
  });

  it("tells kind and position, never the value", () => {
    const sample = SECRET_SAMPLES.find((s) => s.family === "forge")!;
    const text = `line one\nthe token ${sample.value} here`;
    const cleaned = cleanText("content", text);
    expect(cleaned.redactions).toEqual([{ field: "content", kind: "github", line: 2, column: 11, offset: 19 }]);
    expect(cleaned.text).toBe("line one\nthe token [redacted: github] here");
    expect(JSON.stringify(cleaned.redactions)).not.toContain(sample.value);
  });

  it("still finds a secret a secretlint-disable comment points at (a writer could otherwise exempt its own secret)", () => {
    const sample = SECRET_SAMPLES.find((s) => s.family === "forge")!;
    const text = `// secretlint-disable-next-line\nconst token = "${sample.value}"; // secretlint-disable-line\n/* secretlint-disable */ ${sample.value}`;
    const cleaned = cleanText("content", text);
    expect(cleaned.redactions.map((redaction) => redaction.kind)).toEqual(["github", "github"]);
    expect(cleaned.text).not.toContain(sample.value);
  });

  it("leaves a redacted text as it is", () => {
    const text = SECRET_SAMPLES.map((sample, i) => embed(sample, embeddingOf(i))).join("\n\n");
    const once = cleanText("content", text).text;
    expect(cleanText("content", once)).toEqual({ text: once, redactions: [] });
  });

  it("finds the same in a text whatever was scanned before it (its patterns are shared between scans)", () => {
    const texts = SECRET_SAMPLES.map((sample, i) => embed(sample, embeddingOf(i)));
    const alone = texts.map((text) => findSecrets(text));
    // Each scan after a longer one with hits near its end, and after a scan of nothing.
    const afterOthers = texts.map((text, i) => (findSecrets(texts.join("\n").repeat(2)), findSecrets(i % 2 ? "" : texts[(i + 1) % texts.length]), findSecrets(text)));
    expect(afterOthers).toEqual(alone);
    expect(alone.every((hits) => hits.length > 0)).toBe(true);
  });
});

/**
 * What secretlint's own AWS rule reports in `text` (its ID check on, as Baton scans): each range
 * as the rule gives it, except a secret access key's, which the rule starts at its assignment
 * with the key's length: there the key's own offsets.
 */
function presetAwsHits(text: string): { start: number; end: number }[] {
  const rule = (recommendedRules as unknown as SecretLintRuleCreator[]).find((candidate) => candidate.meta.id === "@secretlint/secretlint-rule-aws")!;
  const hits: { start: number; end: number }[] = [];
  let key: string | undefined;
  const context = {
    sharedOptions: {},
    createTranslator: () => (messageId: string, data: { KEY?: string }) => ((key = messageId === "AWSSecretAccessKey" ? data.KEY : undefined), { message: messageId, data }),
    report: ({ range }: { range: readonly [number, number] }) => {
      const start = key === undefined ? range[0] : text.indexOf(key, range[0]);
      hits.push({ start, end: key === undefined ? range[1] : start + key.length });
    },
    ignore: () => {},
  } as unknown as SecretLintRuleContext;
  const handler = rule.create(context, { enableIDScanRule: true }) as { file: (source: { content: string; contentType: "text"; filePath: undefined; ext: string }) => void };
  handler.file({ content: text, contentType: "text", filePath: undefined, ext: "" });
  return hits;
}

describe("Baton's AWS scanner against secretlint's AWS rule", () => {
  const upper = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  const keyChar = fc.constantFrom(..."ABCXYZabcxyz0189/+=");
  const accessKeyId = fc.tuple(fc.constantFrom("AKIA", "ASIA", "AGPA", "A3TX", "AIDA", "AKIB"), fc.array(upper, { minLength: 15, maxLength: 17 })).map(([prefix, rest]) => prefix + rest.join(""));
  const quote = fc.constantFrom("", '"', "'");
  const connect = fc.constantFrom("=", ":", "=>", " = ", ": ", " => ", "\t=\t");
  const secretKey = fc
    .tuple(quote, fc.constantFrom("aws_", "AWS", "Aws_", "", "_"), fc.constantFrom("secret_access_key", "SECRET_ACCESS_KEY", "SecretAccessKey", "secretaccesskey", "secret_key"), quote, connect, quote, fc.array(keyChar, { minLength: 39, maxLength: 41 }), quote)
    .map(([q1, aws, name, q2, connector, q3, key, q4]) => `${q1}${aws}${name}${q2}${connector}${q3}${key.join("")}${q4}`);
  const accountId = fc
    .tuple(quote, fc.constantFrom("aws_", "AWS", ""), fc.constantFrom("account_id", "ACCOUNT", "AccountId", "accountid"), quote, connect, quote, fc.stringMatching(/^[0-9]{4}-?[0-9]{4}-?[0-9]{4}[0-9]?$/), quote)
    .map(([q1, aws, name, q2, connector, q3, digits, q4]) => `${q1}${aws}${name}${q2}${connector}${q3}${digits}${q4}`);
  const filler = fc.constantFrom(" ", "\n", "x", "key ", "AKIA", "=", '"', "export ", "aws", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  const text = fc.array(fc.oneof(accessKeyId, secretKey, accountId, filler), { maxLength: 8 }).map((parts) => parts.join(""));

  it("covers every secret the rule finds, and starts no hit where the rule finds none", () => {
    fc.assert(
      fc.property(text, (sample) => {
        const found = findSecrets(sample);
        const theirs = presetAwsHits(sample);
        for (const expected of theirs) expect(found.some((hit) => hit.start <= expected.start && expected.end <= hit.end)).toBe(true);
        // A merged hit keeps the kind of the hit it starts with: one of kind aws starts with this scanner's.
        for (const hit of found.filter((candidate) => candidate.kind === "aws")) expect(theirs.some((expected) => expected.start === hit.start)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("reports a secret access key at the key itself, never the name before it", () => {
    const key = "Zq8/ABCxyz0189+Zq8ABCxyz0189Zq8ABCxyz012";
    const text = `"aws_secret_access_key" => "${key}"`;
    const [hit] = findSecrets(text).filter((found) => found.kind === "aws");
    expect(text.slice(hit.start, hit.end)).toBe(key);
    expect(cleanText("content", text).text).toBe('"aws_secret_access_key" => "[redacted: aws]"');
  });
});

/** The preset's rules Baton runs (not the comment filter, not AWS's, which Baton runs in a form of its own). */
const presetRulesRun = (recommendedRules as unknown as SecretLintRuleCreator[]).filter(
  (rule) => rule.meta.type === "scanner" && !rule.meta.id.endsWith("filter-comments") && !rule.meta.id.endsWith("-aws"),
);

/** Runs `rule` on `content` as Baton drives it (text without a file name), each range it reports to `report`. */
function runPresetRule(rule: SecretLintRuleCreator, content: string | object, report: (range: readonly [number, number]) => void): void {
  const context = {
    sharedOptions: {},
    createTranslator: () => (messageId: string) => ({ message: messageId, data: {} }),
    report: ({ range }: { range: readonly [number, number] }) => report(range),
    ignore: () => {},
  } as unknown as SecretLintRuleContext;
  (rule.create(context, {}) as { file?: (source: object) => void }).file?.({ content, contentType: "text", filePath: undefined, ext: "" });
}

/** Where each rule of the preset Baton runs reports in `text`. */
function presetHitsByRule(text: string): { rule: string; start: number; end: number }[] {
  const hits: { rule: string; start: number; end: number }[] = [];
  for (const rule of presetRulesRun) runPresetRule(rule, text, ([start, end]) => hits.push({ rule: rule.meta.id, start, end }));
  return hits;
}

/**
 * The patterns each rule of the preset runs as Baton drives it (read as it runs them: its
 * `matchAll` calls on a probe text), and whether it called anything else on the text.
 */
function presetPatternsByRule(): { rule: string; patterns: RegExp[]; otherCalls: string[] }[] {
  return presetRulesRun.map((rule) => {
    const patterns: RegExp[] = [];
    const otherCalls: string[] = [];
    // A string object: what the rules read as the text, with its methods seen as they call them.
    const probe = new String("probe text") as unknown as Record<string, unknown>;
    probe.matchAll = (pattern: RegExp) => (patterns.push(pattern), "probe text".matchAll(pattern));
    for (const method of ["match", "replace", "replaceAll", "search", "split", "includes", "indexOf", "startsWith", "endsWith", "slice", "toString", "valueOf"]) {
      probe[method] = (...args: unknown[]) => (otherCalls.push(method), (String.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method].apply("probe text", args));
    }
    runPresetRule(rule, probe, () => {});
    return { rule: rule.meta.id, patterns, otherCalls };
  });
}

describe("each of the preset's rules skipped for a text without its prefixes", () => {
  it("is on for the installed preset (12.0.0, pinned in package.json): each of its rules has been read", () => {
    expect(PRESET_PREFILTERED).toBe(true);
    const installed = JSON.parse(fs.readFileSync(path.join(process.cwd(), "node_modules/@secretlint/secretlint-rule-preset-recommend/package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe("12.0.0");
  });

  it("every match of every pattern a preset rule runs holds that rule's prefixes", () => {
    const rules = presetPatternsByRule();
    // A rule run always (no prefixes) is one that runs no pattern on text without a file name.
    expect(rules.filter(({ patterns }) => patterns.length === 0).map(({ rule }) => rule)).toEqual(["@secretlint/secretlint-rule-gcp"]);
    expect([...PRESET_PREFIXES].filter(([, prefixes]) => prefixes === null).map(([rule]) => rule)).toEqual(["@secretlint/secretlint-rule-gcp"]);
    expect(rules.flatMap(({ rule, otherCalls }) => otherCalls.map((call) => `${rule}: ${call}`))).toEqual([]);
    for (const { rule, patterns } of rules) {
      for (const pattern of patterns) {
        // fast-check generates from a subset of the syntax: zero-width edges dropped (each match
        // of the pattern is then still among what it generates) and case left to the prefixes' own `i`.
        const source = pattern.source.replace(/^\(\?<!\\p\{L\}\)/, "").replace(/\(\?!(?:[^()]|\[[^\]]*\])*\)$/, "").replaceAll("\\b", "");
        const matches = fc.stringMatching(new RegExp(`^(?:${source})$`, pattern.flags.replace(/[gdyim]/g, "")));
        fc.assert(
          fc.property(matches, (match) => {
            expect(PRESET_PREFIXES.get(rule)?.test(match), `${rule}: ${match}`).toBe(true);
            expect(mayHoldPresetSecret(match), `${rule}: ${match}`).toBe(true);
          }),
          { numRuns: 200 },
        );
      }
    }
  });

  it("every secret a preset rule finds in the corpus holds that rule's prefixes", () => {
    let found = 0;
    for (const [i, sample] of SECRET_SAMPLES.entries()) {
      const text = embed(sample, embeddingOf(i));
      for (const hit of presetHitsByRule(text)) {
        found += 1;
        expect(PRESET_PREFIXES.get(hit.rule)?.test(text.slice(hit.start, hit.end)), `${hit.rule}: ${text.slice(hit.start, hit.end)}`).toBe(true);
      }
    }
    expect(found).toBeGreaterThan(15);
  });

  it("a text with none skips them; a link or a token prefix does not; Baton's own checks read every text", () => {
    for (const text of ["bench entry", "Fixed the retry in src/hooks/retry.ts:41 (v1.2.3-rc, 3 tests)", "Deployed 4f2a9c1 to staging"]) {
      expect(mayHoldPresetSecret(text), text).toBe(false);
    }
    for (const text of ["see https://example.com/docs", "deploy with xoxb-1-2 now", "SG.a.bc", "-----BEGIN", "GHP_x"]) expect(mayHoldPresetSecret(text), text).toBe(true);
    expect(findSecrets("then run mysql -pHunter2x").map((hit) => hit.kind)).toEqual(["command-password"]);
  });
});
