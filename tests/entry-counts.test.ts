import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addEntry, createHandoff, getHandoff, markRead, type OmittedRange } from "../lib/handoffs";

type Side = "chat" | "code";
type Stored = { seq: number; number: number };

/**
 * What get_handoff counts (every entry, the new ones, the ranges it left out) against a model that
 * holds every entry: lib/handoffs/store.ts tells them from entries' numbers, not by counting rows.
 * Two threads written in turns, so one thread's seqs have gaps; reads of every paging kind, with
 * limits and byte budgets that leave entries out on either side.
 */
describe("a thread's counts and left-out ranges", () => {
  it("are what the entries say, whatever was appended, read and paged", { timeout: 120_000 }, async () => {
    const side = fc.constantFrom<Side>("chat", "code");
    const operation = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant("append" as const), thread: fc.nat(1), side }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("mark" as const), thread: fc.nat(1), side }) },
    );
    const paging = fc.record(
      {
        after: fc.oneof(fc.constant(0), fc.nat(40)),
        before: fc.nat(40),
        fromNumber: fc.integer({ min: 1, max: 20 }),
        limit: fc.integer({ min: 1, max: 8 }),
        // A byte budget small enough to end a walk before its limit does.
        maxBytes: fc.option(fc.integer({ min: 200, max: 3_000 }), { nil: undefined }),
        kind: fc.constantFrom("whole", "after", "before", "between", "from"),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 24 }), fc.array(fc.tuple(fc.nat(1), side, paging), { minLength: 1, maxLength: 6 }), async (operations, reads) => {
        const threads = await Promise.all(
          [0, 1].map(async (index) => {
            const created = await createHandoff({ title: `counted ${index}`, content: "first", asClient: "chat" });
            return { id: created.handoff.id, entries: created.entries.map(({ seq, number }) => ({ seq, number })) as Stored[], cursors: { chat: created.entries[0].seq, code: 0 } };
          }),
        );
        for (const step of operations) {
          const thread = threads[step.thread];
          if (step.kind === "append") {
            const { entry } = await addEntry({ id: thread.id, type: "progress", content: `by ${step.side}`, asClient: step.side });
            thread.entries.push({ seq: entry.seq, number: entry.number });
            thread.cursors[step.side] = entry.seq;
          } else {
            await markRead({ id: thread.id, asClient: step.side });
            thread.cursors[step.side] = thread.entries.at(-1)!.seq;
          }
        }
        for (const [index, reader, page] of reads) {
          const thread = threads[index];
          const seqOf = (position: number) => thread.entries[Math.min(position, thread.entries.length - 1)].seq;
          // What the read asks for, and the seqs that asks for: entries past `gt` and before `lt`.
          const lo = Math.min(page.after, page.before);
          const hi = Math.max(page.after, page.before);
          const fromNumber = Math.min(page.fromNumber, thread.entries.length);
          const [options, asked]: [{ afterSeq?: number; beforeSeq?: number; fromNumber?: number }, { gt?: number; lt?: number }] =
            page.kind === "whole"
              ? [{}, {}]
              : page.kind === "after"
                ? [{ afterSeq: page.after === 0 ? 0 : seqOf(page.after) }, { gt: page.after === 0 ? 0 : seqOf(page.after) }]
                : page.kind === "before"
                  ? [{ beforeSeq: seqOf(page.before) + 1 }, { lt: seqOf(page.before) + 1 }]
                  : page.kind === "between"
                    ? [{ afterSeq: seqOf(lo) - 1, beforeSeq: seqOf(hi) + 1 }, { gt: seqOf(lo) - 1, lt: seqOf(hi) + 1 }]
                    : [{ fromNumber }, { gt: thread.entries[fromNumber - 1].seq - 1 }];
          const answer = await getHandoff({ id: thread.id, asClient: reader, limit: page.limit, maxBytes: page.maxBytes, ...options });
          const cursor = thread.cursors[reader];
          expect(answer.entryCount).toBe(thread.entries.length);
          expect(answer.newCount).toBe(thread.entries.filter((entry) => entry.seq > cursor).length);
          const carried = answer.entries.map((entry) => entry.seq);
          const inScope = thread.entries.filter((entry) => (asked.gt === undefined || entry.seq > asked.gt) && (asked.lt === undefined || entry.seq < asked.lt));
          const rangeOf = (entries: Stored[]): OmittedRange | null =>
            entries.length === 0 ? null : { firstNumber: entries[0].number, lastNumber: entries.at(-1)!.number, firstSeq: entries[0].seq, lastSeq: entries.at(-1)!.seq, count: entries.length };
          expect(answer.omitted).toEqual(
            carried.length === 0
              ? { earlier: null, later: null }
              : { earlier: rangeOf(inScope.filter((entry) => entry.seq < carried[0])), later: rangeOf(inScope.filter((entry) => entry.seq > carried.at(-1)!)) },
          );
        }
      }),
      { numRuns: 40 },
    );
  });
});
