import "server-only";
import { rules as recommendedRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintRuleContext, SecretLintRuleCreator } from "@secretlint/types";

/** One secret in a text: what kind, and where (UTF-16 offsets, end exclusive). Never the value. */
export type SecretHit = { kind: string; start: number; end: number };

/** What stands in a stored text where a secret was. */
function redactionMarker(kind: string): string {
  return `[redacted: ${kind}]`;
}

/** `text` with each of `hits` (in order, not overlapping) replaced by its marker. */
export function withMarkers(text: string, hits: SecretHit[]): string {
  let out = "";
  let from = 0;
  for (const hit of hits) {
    out += text.slice(from, hit.start) + redactionMarker(hit.kind);
    from = hit.end;
  }
  return out + text.slice(from);
}

type Scanner = (text: string, report: (hit: SecretHit) => void) => void;

/**
 * secretlint's recommended preset, driven synchronously: its text rules are plain regular
 * expressions in a synchronous `file` handler, while its public `lintSource` is async and
 * builds a whole linter per call. Running the rules directly keeps the scan synchronous (an
 * append scans just before its write transaction, lib/handoffs/store.ts) and about ten times cheaper.
 * The preset's comment filter is left out: a secret in a comment is still a secret.
 */
function secretlintScanner(rule: SecretLintRuleCreator): Scanner {
  const kind = rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, "");
  // Created once: the handler is a closure over the rule's compiled patterns; `report` goes to
  // the scan in progress (scans are synchronous, so there is only ever one).
  let current: (hit: SecretHit) => void = () => {};
  const context = {
    sharedOptions: {},
    // The translated message would embed the secret: only the rule's message id is kept.
    createTranslator: () => (messageId: string) => ({ message: messageId, data: {} }),
    report: ({ range }: { range: readonly [number, number] }) => current({ kind, start: range[0], end: range[1] }),
    ignore: () => {},
  } as unknown as SecretLintRuleContext;
  const handler = rule.create(context, {}) as { file?: (source: { content: string; contentType: "text"; filePath: undefined; ext: string }) => unknown };
  return (text, report) => {
    current = report;
    const pending = handler.file?.({ content: text, contentType: "text", filePath: undefined, ext: "" });
    // Only the binary PKCS#12 check is async, and text never reaches it.
    if (pending instanceof Promise) pending.catch(() => {});
  };
}

/**
 * The matches of the global `pattern` in `text`, in order. exec, not matchAll: matchAll copies the
 * pattern and sets the copy up again (its flags parsed, its compiled code looked up) on every
 * call, 0.16 µs each against 0.02 µs, for each of this module's 16 patterns on every append.
 * Scans are synchronous: no other one moves the pattern's lastIndex meanwhile.
 */
function matchesOf(text: string, pattern: RegExp): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    matches.push(match);
    // An empty match would be found again at the same place.
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  return matches;
}

function regexScanner(kind: string, pattern: RegExp): Scanner {
  return (text, report) => {
    for (const match of matchesOf(text, pattern)) report({ kind, start: match.index, end: match.index + match[0].length });
  };
}

/**
 * The preset's AWS rule (secretlint-rule-aws 12.0.0) with its patterns compiled once: the rule
 * builds its two assignment patterns anew on every call: 6–16 µs a scan (measured on an
 * 11-letter entry, against about 1 µs compiled once), as much as the preset's other 24 rules
 * together, and every append scans. The same three patterns and the same two documented example
 * values left alone; a secret access key is reported at its own offsets, where the rule gives
 * the assignment's start with the key's length (its tail was then covered only by another rule
 * finding it too). tests/secrets-scan.test.ts holds it to the preset's rule.
 */
const AWS_ACCESS_KEY_ID = /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g;
const AWS_SECRET_ACCESS_KEY = /["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?(?<secret>[A-Za-z0-9/+=]{40})["']?\b/dg;
const AWS_ACCOUNT_ID = /(?:"|')?(?:AWS|aws|Aws)?_?(?:ACCOUNT|account|Account)_?(?:ID|id|Id)?(?:"|')?\s*(?::|=>|=)\s*(?:"|')?[0-9]{4}-?[0-9]{4}-?[0-9]{4}(?:"|')?\b/g;
// The preset's own AWS rule leaves the access key ID check off by default; a key ID is a secret here.
const AWS_EXAMPLES = new Set(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]);
const AWS_KIND = "aws";

const aws: Scanner = (text, report) => {
  for (const match of matchesOf(text, AWS_ACCESS_KEY_ID)) {
    if (!AWS_EXAMPLES.has(match[0])) report({ kind: AWS_KIND, start: match.index, end: match.index + match[0].length });
  }
  for (const match of matchesOf(text, AWS_ACCOUNT_ID)) report({ kind: AWS_KIND, start: match.index, end: match.index + match[0].length });
  for (const match of matchesOf(text, AWS_SECRET_ACCESS_KEY)) {
    const [start, end] = match.indices!.groups!.secret!;
    if (!AWS_EXAMPLES.has(match.groups!.secret!)) report({ kind: AWS_KIND, start, end });
  }
};

/** The preset's rules this module runs in a form of its own. */
const REPLACED_RULES = new Set(["@secretlint/secretlint-rule-aws"]);

/** Baton's own credentials: named tokens, OAuth access and refresh tokens (prefix + 32 bytes base64url). */
const batonToken = regexScanner("baton-token", /\bbaton(?:at|rt)?_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g);

/** Header.payload.signature, both JSON parts base64url of `{"`. Not in the preset. */
const jwt = regexScanner("jwt", /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g);

/** Any PEM private key block, also one whose body the preset's stricter check does not accept (wrapped, escaped in JSON). */
const pemPrivateKey = regexScanner("privatekey", /-----BEGIN[A-Z ]{0,30} PRIVATE KEY(?: BLOCK)?-----[\s\S]{16,}?-----END[A-Z ]{0,30} PRIVATE KEY(?: BLOCK)?-----/g);

const PLACEHOLDER = /^(?:x+|\*+|\.+|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|%[A-Z_]+%|\{\{[^}]*\}\}|(?:your|my|example|changeme|placeholder|redacted|dummy|test)\b.*|\[redacted:.*)$/i;

/**
 * `.env`-style assignments (`DB_PASSWORD=…`, `export API_KEY="…"`, `client_secret: …`): only the
 * value is a secret. Values must look like one (8+ characters with a digit, symbol or mixed case)
 * and not be a placeholder, so `TOKEN_TTL=3600` or `password: required` stay.
 */
const ENV_ASSIGNMENT =
  /(?:^|[\s;{,])(?:export\s+)?["']?([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)[A-Za-z0-9_.-]*)["']?\s*[:=]\s*(["']?)([^\s"'`,;\\]{8,200})\2/gim;

const envAssignment: Scanner = (text, report) => {
  for (const match of matchesOf(text, ENV_ASSIGNMENT)) {
    const value = match[3];
    if (PLACEHOLDER.test(value)) continue;
    if (!/\d|[^A-Za-z0-9]|[a-z].*[A-Z]|[A-Z].*[a-z]/.test(value)) continue;
    // Code, not a value: `token = getToken()`, `password: string`, `tokens.refresh_token!`,
    // `secret: Record<string, …>`, `TOKEN = /^baton_…$/`. Measured on this repository's own code.
    if (/^[A-Za-z_$][\w$.]*[!:;,)]?(?:\(.*)?$/.test(value) && !/\d/.test(value)) continue;
    if (/[<>()[\]{}]/.test(value) || value.startsWith("/")) continue;
    const end = match.index + match[0].length - match[2].length;
    report({ kind: "env-assignment", start: end - value.length, end });
  }
};

/**
 * Credentials in the forms connection strings and command lines carry them, each pattern's `secret`
 * group the part to redact (the user name and host stay readable): a password in any URL's user
 * part (`redis://:pw@`, `amqp://user:pw@`, `postgresql://u:pw@`), credential query parameters
 * (`?password=`, `sslpassword=`, `pwd=`), a `.pgpass` line (host:port:database:user:password),
 * and the password options of common tools (`sshpass -p`, `mysql -pSECRET`, `--password=`,
 * `redis-cli -a`, `curl -u user:pw`). Flags are case-sensitive: `mysql -P 3306` is a port. Every
 * repeated part has a bound, so a megabyte of letters costs a linear scan, not a backtracking one.
 */
const CREDENTIAL_FORMS: { kind: string; pattern: RegExp }[] = [
  { kind: "url-password", pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/?#@:"'`]{0,256}:(?<secret>[^\s/?#@"'`]{1,256})@/dgi },
  { kind: "url-password", pattern: /[?&;](?:password|passwd|pwd|pass|sslpassword|db_password)=(?<secret>[^&;#\s"'`]+)/dgi },
  { kind: "pgpass", pattern: /(?<![\w.:/@-])(?<host>\*|[A-Za-z0-9.-]{1,253}):(?:\d{1,5}|\*):[\w.*-]{1,63}:[\w.*@-]{1,63}:(?<secret>[^\s:"'`,]{4,256})(?=$|[\s"'`,])/dgm },
  { kind: "command-password", pattern: /\bsshpass\s+-p\s*(?<q>["']?)(?<secret>[^\s"']+)\k<q>/dg },
  { kind: "command-password", pattern: /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,200}?\s-p(?<secret>[^\s"'`]+)/dg },
  { kind: "command-password", pattern: /(?:^|\s)--(?:password|passwd|pass)(?:=|\s+)(?<q>["']?)(?<secret>[^\s"'`-][^\s"'`]*)\k<q>/dg },
  { kind: "command-password", pattern: /\bredis-cli\b[^\n]{0,200}?\s-a\s+(?<q>["']?)(?<secret>[^\s"'`]+)\k<q>/dg },
  { kind: "command-password", pattern: /\bcurl\b[^\n]{0,200}?\s(?:-u|--user)\s*(?<q>["']?)[^\s:"']{1,256}:(?<secret>[^\s"'`]+)\k<q>/dg },
];

const credentialForms: Scanner = (text, report) => {
  for (const { kind, pattern } of CREDENTIAL_FORMS) {
    for (const match of matchesOf(text, pattern)) {
      // The `d` flag gives each group's offsets.
      const where = match.indices?.groups?.secret;
      if (!where || PLACEHOLDER.test(match.groups?.secret ?? "")) continue;
      // A .pgpass host has a letter or a dot (or is `*`): not a run of numbers like a time.
      if (match.groups?.host !== undefined && !/[A-Za-z.*]/.test(match.groups.host)) continue;
      report({ kind, start: where[0], end: where[1] });
    }
  }
};

// Whole runs, filtered by length in code: `{32,}` would rescan every shorter word from each of its letters.
const ENTROPY_CANDIDATE = /[A-Za-z0-9+/_-]+={0,2}/g;

function shannonBits(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Long random-looking strings no rule names (generic API keys). Tuned on the look-alike corpus
 * (tests/fixtures/secrets): hex (git SHAs, digests) and UUIDs have too few symbols, `sha512-…` is a lockfile's integrity; base64 after
 * `base64,` is an inline image; words and paths lack digits or entropy; hof_ ids are shorter.
 */
const highEntropy: Scanner = (text, report) => {
  for (const match of matchesOf(text, ENTROPY_CANDIDATE)) {
    const value = match[0];
    if (value.length < 32) continue;
    if (/^[0-9a-fA-F-]+$/.test(value) || /^sha(?:256|384|512)-/.test(value)) continue;
    // An alphabet written out (ID generators, base64 tables) is as random-looking as a key.
    if (/ABCDEFGH|abcdefgh|01234567/.test(value)) continue;
    if (!/[a-z]/.test(value) || !/[A-Z]/.test(value) || !/\d/.test(value)) continue;
    const before = text.slice(Math.max(0, match.index - 8), match.index);
    if (/base64,$/.test(before)) continue;
    // Paths and identifiers: separators with word-length runs between them.
    if (value.split(/[/_-]/).length > 3 && value.split(/[/_-]/).every((part) => part.length < 16)) continue;
    if (shannonBits(value) < 4.3) continue;
    report({ kind: "high-entropy", start: match.index, end: match.index + value.length });
  }
};

/** The preset's one rule that finds nothing: it reads `secretlint-disable` comments to silence the others. */
const COMMENT_FILTER = "@secretlint/secretlint-rule-filter-comments";

/**
 * The preset's rules this module has read pattern by pattern (secretlint 12.0.0, pinned, run as
 * Baton runs them: text without a file name), each with what every match of its patterns holds:
 * a provider's prefix (`ghp_`, `glpat-`, `xoxb-`, `SG.`, `T3BlbkFJ` inside OpenAI's keys, …),
 * `-----BEGIN`, or `://` (credentials in a URL, a connection string, Slack's webhooks). Matched
 * regardless of case, wider than the rules. null: run always (gcp, which finds nothing in text
 * without a file name). tests/secrets-scan.test.ts generates matches of every pattern each rule
 * runs and checks that each holds its rule's prefixes.
 */
export const PRESET_PREFIXES: ReadonlyMap<string, RegExp | null> = new Map(
  Object.entries({
    "1password": /ops_/i,
    anthropic: /sk-ant-api0/i,
    basicauth: /:\/\//,
    "database-connection-string": /:\/\//,
    databricks: /dapi/i,
    docker: /dckr_pat_/i,
    figma: /figd_/i,
    gcp: null,
    github: /gh[pousr]_|github_pat_/i,
    gitlab: /glpat-/i,
    grafana: /glc_|glsa_/i,
    groq: /gsk_/i,
    "hashicorp-vault": /hv[sbr]\./i,
    huggingface: /hf_/i,
    linear: /lin_api_/i,
    notion: /ntn_/i,
    npm: /:\/\/|npm_/i,
    openai: /T3BlbkFJ/i,
    privatekey: /-----BEGIN/i,
    sendgrid: /SG\./i,
    shopify: /shp(?:pa|ca|at|ss)_/i,
    slack: /xox[bpaor]-|xapp-|:\/\//i,
    vercel: /vc[pikar]_/i,
  }).map(([name, prefixes]) => [`@secretlint/secretlint-rule-${name}`, prefixes]),
);

/** Any rule's prefixes: a text without one skips the preset whole, in one test. */
const ANY_PRESET_PREFIX = new RegExp(
  [...PRESET_PREFIXES.values()].flatMap((prefixes) => (prefixes ? [prefixes.source] : [])).join("|"),
  "i",
);

const presetRules = (recommendedRules as unknown as SecretLintRuleCreator[]).filter(
  (rule) => rule.meta.type === "scanner" && rule.meta.id !== COMMENT_FILTER && !REPLACED_RULES.has(rule.meta.id),
);

/**
 * Whether the preset's rules run only on texts holding their prefixes: only while every rule of
 * the installed preset is one read above (a new rule turns this off until it is read). The
 * preset's 23 rules cost an append about 70 µs of its 0.6 ms in a serving process (each rule's
 * patterns run cold between calls), against 11 µs in a loop; most texts (prose, paths, versions)
 * hold none of their prefixes, and a link runs the four that look at URLs. Baton's own scanners
 * below always run.
 */
export const PRESET_PREFILTERED = presetRules.every((rule) => PRESET_PREFIXES.has(rule.meta.id));

/** Whether any of the preset's rules can find something in `text` (see PRESET_PREFILTERED). */
export function mayHoldPresetSecret(text: string): boolean {
  return !PRESET_PREFILTERED || ANY_PRESET_PREFIX.test(text);
}

/** The preset's rules, each run on a text only when it holds the rule's prefixes (see PRESET_PREFILTERED). */
const PRESET_SCANNERS: Scanner[] = presetRules.map((rule) => {
  const scan = secretlintScanner(rule);
  const prefixes = PRESET_PREFILTERED ? PRESET_PREFIXES.get(rule.meta.id) : null;
  if (!prefixes) return scan;
  return (text, report) => {
    if (prefixes.test(text)) scan(text, report);
  };
});

const SCANNERS: Scanner[] = [
  ...PRESET_SCANNERS,
  aws,
  batonToken,
  jwt,
  pemPrivateKey,
  credentialForms,
  envAssignment,
  highEntropy,
];

/** Every secret in `text`, in order; overlapping hits are merged under the first one's kind (at the same start, the more specific rule's). */
export function findSecrets(text: string): SecretHit[] {
  const hits: { hit: SecretHit; rank: number }[] = [];
  const from = mayHoldPresetSecret(text) ? 0 : PRESET_SCANNERS.length;
  for (let rank = from; rank < SCANNERS.length; rank++) SCANNERS[rank](text, (hit) => hits.push({ hit, rank }));
  if (hits.length === 0) return [];
  hits.sort((a, b) => a.hit.start - b.hit.start || a.rank - b.rank || b.hit.end - a.hit.end);
  const merged: SecretHit[] = [];
  for (const { hit } of hits) {
    const last = merged.at(-1);
    if (last && hit.start < last.end) last.end = Math.max(last.end, hit.end);
    else merged.push({ ...hit });
  }
  return merged;
}
