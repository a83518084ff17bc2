import { describe, expect, it } from "vitest";
import { cleanText, findSecrets } from "../lib/secrets";
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
});
