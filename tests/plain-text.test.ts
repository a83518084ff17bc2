import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsedWords, plainTextOf } from "../lib/plain-text";
import { highlightedExcerpt, MATCH_END, MATCH_START } from "../lib/search/highlight";

/** What a preview must never show (issue 28, acceptance 5). */
const MARKUP = /\*\*|`|\|-{3}|^#/m;

describe("previews as text", () => {
  it("keeps the words and drops the markup of the Markdown entries are written in", () => {
    expect(plainTextOf("We decided on **JWT** with `refresh` tokens.")).toBe("We decided on JWT with refresh tokens.");
    expect(plainTextOf("### Plan\n\n1. first *step*\n2. second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")).toBe("Plan first step second a · b 1 · 2");
    expect(plainTextOf("```ts\nconst x = 1;\n```\nafter the fence")).toBe("const x = 1; after the fence");
    expect(plainTextOf("> quoted [a link](https://example.com) ![a diagram](d.png) ~~gone~~\n\n---\n# Heading")).toBe("quoted a link a diagram gone Heading");
    expect(plainTextOf("word ".repeat(100), 20)).toBe("word word word word…");
    // Nested past what Baton formats (as the thread does): shown as it is, not parsed, never a stack overflow.
    expect(plainTextOf(`${">".repeat(4_000)} x`, 10)).toBe(`${">".repeat(10)}…`);
    // Only the start of a longer text was read: it says so even when its words are few.
    expect(plainTextOf("**short** start", 160, true)).toBe("short start…");
    // A table without pipes: `:-` under a line makes it a header (the property below found it, CI, seed 561643193).
    expect(plainTextOf("a\n:-")).toBe("a");
    expect(plainTextOf("plan\n  :-:")).toBe("plan");
    expect(plainTextOf("ready:\n:-: done")).toBe("ready: :-: done");
  });

  it("keeps a search passage's match marks, around the words", () => {
    const excerpt = highlightedExcerpt(`…we chose **${MATCH_START}JWT${MATCH_END}** with \`refresh\` tokens…`);
    expect(excerpt).toEqual([
      { text: "…we chose ", match: false },
      { text: "JWT", match: true },
      { text: " with refresh tokens…", match: false },
    ]);
  });

  it("shows no markup for any mix of Markdown", () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const inline = fc.oneof(
      word,
      word.map((text) => `**${text}**`),
      word.map((text) => `\`${text}\``),
      word.map((text) => `*${text}*`),
      word.map((text) => `[${text}](https://example.com/${text})`),
    );
    const line = fc.array(inline, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(" "));
    const block = fc.oneof(
      line,
      line.map((text) => `# ${text}`),
      line.map((text) => `### ${text}`),
      line.map((text) => `- ${text}`),
      line.map((text) => `> ${text}`),
      fc.tuple(word, word).map(([a, b]) => `| ${a} | ${b} |\n|---|---|\n| ${b} | ${a} |`),
      // A fence holds code, shown as it is: its lines here are plain words.
      fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => `\`\`\`\n${words.join(" ")}\n\`\`\``),
    );
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 6 }), (blocks) => {
        const text = plainTextOf(blocks.join("\n\n"), 160);
        expect(text).not.toMatch(MARKUP);
        expect(text).not.toContain("\n");
      }),
      { numRuns: 200 },
    );
  });

  it("reads a text without Markdown's syntax as the parser does, without parsing it", () => {
    // Letters, digits, spaces, line ends, prose punctuation and every character Markdown reads as syntax somewhere.
    const alphabet = [..."ab1 .,:;?!'\"()@/-+=#>*_~`[]<|&\\\t\n\r\u0000\u00a0\uE000\uE001"];
    const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((characters) => characters.join(""));
    // Prose, with the pieces GFM turns into links without any syntax character (their text stays as written).
    const prose = fc
      .array(fc.constantFrom(..."ab1 .,:;?!'\"()@/-+=#>\n\t", "www.", "http://", "a@b.co"), { maxLength: 40 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(fc.oneof(text, prose), (source) => {
        expect(plainTextOf(source)).toBe(parsedWords(source).replace(/\s+/g, " ").trim());
      }),
      { numRuns: 3000 },
    );
  });
});
