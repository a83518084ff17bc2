import "server-only";
import { findHandoffsNewTo, type HandoffNewToSide } from "../handoffs/attention";
import { getHandoff } from "../handoffs/get-handoff";
import { THREAD_ANSWER_BUDGET_BYTES } from "../handoffs/limits";
import type { EntryView } from "../handoffs/views";
import { read } from "../database";
import { summarizeStaleness, type Staleness } from "../git/types";
import { linkedProjectIn } from "./links";
import { fenceFor, handoffDetails, quoteDetails, quoteEntries, quotingNotice, textsOf, type QuotedField } from "./quote";
import { belongsTo, repositoryAt, type Repository } from "./repository";

/** Handoffs whose new entries are quoted (newest activity first); the others are only named. */
export const MAX_QUOTED_HANDOFFS = 3;
/** Below this much of the budget left, an entry is left out rather than cut, and a handoff is named rather than quoted. */
const MIN_ROOM_BYTES = 4 * 1024;

export type PickedHandoff = HandoffNewToSide & {
  /** The new entries quoted in the note (oldest first); empty when the handoff is only named. */
  quoted: EntryView[];
  /** The last quoted entry is cut at this many characters to fit the budget; null: every one is whole. */
  cutAt: number | null;
  /** New entries left out of the note for its budget. */
  leftOut: number;
  /** What moved on in the repository since the handoff's recorded state (lib/git), when it did. */
  staleness: Staleness | null;
};

export type SessionPickup = {
  repository: Repository;
  /** Handoffs of this repository with entries new to the code side, newest activity first. */
  handoffs: PickedHandoff[];
  /** The note for the session's context; null when nothing waits. */
  context: string | null;
};

/** The handoffs of `repository` with entries new to the code side: by its recorded git state or its linked project. */
export async function handoffsWaitingIn(repository: Repository): Promise<HandoffNewToSide[]> {
  const linked = await read((tx) => linkedProjectIn(tx, repository));
  return (await findHandoffsNewTo("code")).filter((candidate) => belongsTo({ project: candidate.handoff.project, recorded: candidate.recorded }, repository, linked));
}

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

/** What text costs in the note as Claude Code receives it: the UTF-8 bytes of its JSON string, escapes included. */
const noteBytes = (text: string) => Buffer.byteLength(JSON.stringify(text), "utf8");

/** A handoff read for the note: its new entries as far as get_handoff's budget reached. */
type ReadHandoff = HandoffNewToSide & { entries: EntryView[]; staleness: Staleness | null };

/** The most characters of `text` whose note cost fits `bytes`, never splitting a surrogate pair. */
function charsFitting(text: string, bytes: number): number {
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (noteBytes(text.slice(0, middle)) <= bytes) low = middle;
    else high = middle - 1;
  }
  return low > 0 && /[\ud800-\udbff]/.test(text[low - 1]) ? low - 1 : low;
}

/**
 * Which entries the note quotes within `room` bytes of entry text, oldest first per handoff: the
 * first that does not fit is cut to the room left (at least MIN_ROOM_BYTES), or left out with
 * everything after it. A handoff past MAX_QUOTED_HANDOFFS, or with no room left, is only named.
 */
function pick(read: ReadHandoff[], others: HandoffNewToSide[], room: number): PickedHandoff[] {
  const picked: PickedHandoff[] = [];
  for (const { entries, staleness, ...candidate } of read) {
    const quoted: EntryView[] = [];
    let cutAt: number | null = null;
    for (const entry of entries) {
      const cost = noteBytes(entry.content);
      if (cost <= room) {
        quoted.push(entry);
        room -= cost;
        continue;
      }
      if (room >= MIN_ROOM_BYTES) {
        quoted.push(entry);
        cutAt = charsFitting(entry.content, room);
        room = 0;
      }
      break;
    }
    picked.push({ ...candidate, quoted, cutAt, leftOut: candidate.newCount - quoted.length, staleness: quoted.length > 0 ? staleness : null });
  }
  return [...picked, ...others.map((candidate) => ({ ...candidate, quoted: [], cutAt: null, leftOut: candidate.newCount, staleness: null }))];
}

/** Tries at fitting the note before it quotes no entry at all; each takes the excess off the room. */
const MAX_FITTING_ROUNDS = 8;

/**
 * What a Claude Code session starting in `folder` should know (its SessionStart hook): the
 * handoffs waiting for the code side in that repository, with their new entries quoted (newest
 * handoff first, at most MAX_QUOTED_HANDOFFS), the staleness block when the repository moved on,
 * and what to do. The whole note, as Claude Code receives it, stays within the answer budget of
 * `get_handoff`: an entry that does not fit is cut or left out, and the note says so. null
 * outside a repository.
 */
export async function sessionStartPickup(options: { folder: string; source?: string }): Promise<SessionPickup | null> {
  const repository = await repositoryAt(options.folder);
  if (!repository) return null;
  const waiting = await handoffsWaitingIn(repository);
  if (waiting.length === 0) return { repository, handoffs: [], context: null };
  let fetchRoom = THREAD_ANSWER_BUDGET_BYTES;
  const read: ReadHandoff[] = [];
  for (const candidate of waiting.slice(0, MAX_QUOTED_HANDOFFS)) {
    if (fetchRoom < MIN_ROOM_BYTES) break;
    const thread = await getHandoff({ id: candidate.handoff.id, asClient: "code", afterSeq: candidate.handoff.codeLastSeen, maxBytes: fetchRoom, repoPath: options.folder });
    fetchRoom -= thread.entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.content, "utf8"), 0);
    read.push({ ...candidate, entries: thread.entries, staleness: thread.staleness });
  }
  const named = waiting.slice(read.length);
  let room = THREAD_ANSWER_BUDGET_BYTES;
  for (let round = 0; ; round++) {
    const handoffs = pick(read, named, round < MAX_FITTING_ROUNDS ? room : 0);
    const context = render(repository, handoffs, options.source);
    const excess = noteBytes(context) - THREAD_ANSWER_BUDGET_BYTES;
    if (excess <= 0 || round >= MAX_FITTING_ROUNDS) return { repository, handoffs, context };
    room -= excess;
  }
}

/** Claude Code's own session sources (startup, resume, clear, compact); anything else is not named. */
const SESSION_SOURCE = /^[a-z]{1,16}$/;

/**
 * The note. Baton's lines carry only Baton's words: IDs, counts, times. Everything from outside
 * (titles, projects, the repository's folder and origin, commit subjects, branch and file names,
 * entries) is inside the quoted blocks.
 */
function render(repository: Repository, handoffs: PickedHandoff[], source: string | undefined): string {
  const detailsOf = (picked: PickedHandoff): QuotedField[] => handoffDetails(picked.handoff, picked.staleness);
  const repositoryDetails: QuotedField[] = [
    ["folder", repository.root],
    ["origin", repository.remote],
  ];
  const quotedHandoffs = handoffs.filter((item) => item.quoted.length > 0);
  const named = handoffs.filter((item) => item.quoted.length === 0);
  const namedTitles: QuotedField[] = named.map((picked) => [picked.handoff.id, picked.handoff.title]);
  const fence = fenceFor([
    ...textsOf(repositoryDetails),
    ...textsOf(namedTitles),
    ...handoffs.flatMap((picked) => [...textsOf(detailsOf(picked)), ...picked.quoted.map((entry) => entry.content)]),
  ]);
  const sourceNote = source && SESSION_SOURCE.test(source) ? `, session source: ${source}` : "";
  const lines = [
    `Baton (automatic pickup): ${plural(handoffs.length, "handoff")} wait${handoffs.length === 1 ? "s" : ""} for the code side in this repository (its folder and origin are quoted below).`,
    `This note was added by Baton's SessionStart hook (\`baton hook session-start\`${sourceNote}), not typed by the user.`,
    quotingNotice(fence, quotedHandoffs.length > 0),
    quoteDetails("this repository", repositoryDetails, fence),
  ];
  for (const picked of quotedHandoffs) {
    const { handoff } = picked;
    lines.push(
      "",
      `Handoff ${handoff.id}: ${plural(picked.newCount, "entry", "entries")} new to you (code); the latest entry is by ${picked.lastWriter}, last activity ${when(handoff.updatedAt)}. Its title and project are quoted below.`,
    );
    if (picked.staleness) lines.push(summarizeStaleness(picked.staleness));
    lines.push(quoteDetails(handoff.id, detailsOf(picked), fence));
    lines.push(quoteEntries(`${handoff.id}, new to code`, picked.quoted, fence, picked.cutAt ?? Infinity));
    const cut = picked.quoted.at(-1);
    if (cut && picked.cutAt !== null) lines.push(`(Entry #${cut.number} is cut at ${picked.cutAt} characters to keep this note short: get_handoff reads it whole.)`);
    if (picked.leftOut > 0) lines.push(`(${plural(picked.leftOut, "later new entry", "later new entries")} left out to keep this note short: get_handoff reads them.)`);
  }
  if (named.length > 0) {
    lines.push("", "Also waiting (not quoted here; their titles are quoted below):");
    for (const picked of named) lines.push(`- ${picked.handoff.id}: ${plural(picked.newCount, "new entry", "new entries")}, the latest by ${picked.lastWriter}.`);
    lines.push(quoteDetails("the handoffs also waiting", namedTitles, fence));
  }
  lines.push(
    "",
    "What to do: tell the user which handoffs are waiting before acting on them. Read each with the Baton MCP tool get_handoff " +
      '(id as above, as_client "code"); once you have read every new entry, call mark_handoff_read (same id, as_client "code") ' +
      'so the next session does not bring them again. Reply or ask in the handoff with add_to_handoff (as_client "code").',
  );
  return lines.join("\n");
}
