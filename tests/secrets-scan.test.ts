import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintRuleContext, SecretLintRuleCreator } from "@secretlint/types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanText, findSecrets } from "../lib/secrets";
import { mayHoldPresetSecret, PRESET_SKIPS_PROSE } from "../lib/secrets/scan";
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

/** Where each rule of secretlint's preset (the ones Baton runs) reports in `text`, as Baton drives it: text without a file name. */
function presetHitsByRule(text: string): { rule: string; start: number; end: number }[] {
  const hits: { rule: string; start: number; end: number }[] = [];
  for (const rule of recommendedRules as unknown as SecretLintRuleCreator[]) {
    if (rule.meta.type !== "scanner" || rule.meta.id.endsWith("filter-comments") || rule.meta.id.endsWith("-aws")) continue;
    const context = {
      sharedOptions: {},
      createTranslator: () => (messageId: string) => ({ message: messageId, data: {} }),
      report: ({ range }: { range: readonly [number, number] }) => hits.push({ rule: rule.meta.id, start: range[0], end: range[1] }),
      ignore: () => {},
    } as unknown as SecretLintRuleContext;
    (rule.create(context, {}) as { file?: (source: object) => void }).file?.({ content: text, contentType: "text", filePath: undefined, ext: "" });
  }
  return hits;
}

describe("the preset's rules skipped for prose (no token-like word)", () => {
  it("is on for the installed preset: each of its rules has been read", () => {
    expect(PRESET_SKIPS_PROSE).toBe(true);
  });

  it("every secret a preset rule finds in the corpus holds a token-like word", () => {
    let found = 0;
    for (const [i, sample] of SECRET_SAMPLES.entries()) {
      const text = embed(sample, embeddingOf(i));
      for (const hit of presetHitsByRule(text)) {
        found += 1;
        expect(mayHoldPresetSecret(text.slice(hit.start, hit.end)), `${hit.rule}: ${text.slice(hit.start, hit.end)}`).toBe(true);
      }
    }
    expect(found).toBeGreaterThan(15);
  });

  // Near misses: the rules' prefixes with too little after them, and the shortest shapes cut by a space.
  const nearMiss = fc.constantFrom("xoxb-1", "xoxp-", "SG.a.b", "SG.ab", "ghp_ab", "glpat-", "hf_", "npm_x", "dapi", "mysql:", "sk-ant", "https:", "ftp://", "-----", "BEGIN", "mongodb", "vcp_a", "a:b@c");
  const word = fc.oneof(
    fc.stringMatching(/^[A-Za-z]{1,19}$/),
    fc.stringMatching(/^[A-Za-z0-9_.:/+=@-]{1,6}$/),
    nearMiss,
  );
  const separator = fc.constantFrom(" ", "\n", "\t", "  ", "\u00a0");
  const prose = fc.array(fc.tuple(word, separator), { maxLength: 24 }).map((parts) => parts.map(([w, s]) => w + s).join(""));

  it("a text without one: no preset rule finds anything, so skipping them changes no scan", () => {
    fc.assert(
      fc.property(prose, (text) => {
        expect(mayHoldPresetSecret(text)).toBe(false);
        expect(presetHitsByRule(text)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it("a token-like word turns the preset on, and prose keeps Baton's own short forms", () => {
    // The shortest shape a preset rule reports: a word of 8 characters.
    for (const text of ["deploy with xoxb-1-2 now"]) {
      expect(presetHitsByRule(text), text).not.toEqual([]);
      expect(mayHoldPresetSecret(text), text).toBe(true);
    }
    for (const text of ["SG.a.bc", "see mysql://h", "x".repeat(20), "v1.2.3-rc"]) expect(mayHoldPresetSecret(text), text).toBe(true);
    for (const text of ["bench entry", "Tests pass, merging now", "Done."]) expect(mayHoldPresetSecret(text), text).toBe(false);
    expect(findSecrets("then run mysql -pHunter2x").map((hit) => hit.kind)).toEqual(["command-password"]);
  });
});
