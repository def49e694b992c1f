/**
 * robots.txt (RFC 9309) with bounded work. robots-parser turned every rule into a regular expression
 * whose matching cost |pattern| x |path| with backtracking: 2000 wildcard rules and a long path held
 * the event loop for 11.8 s. Here a file is read up to 512 KiB (the RFC's minimum, Google's limit),
 * only the group that applies to us is kept, at most MAX_RULES rules of at most MAX_PATTERN characters
 * (later or longer ones are ignored), and a rule matches in time linear in path plus pattern: its
 * literal pieces between `*` are found left to right with Knuth-Morris-Pratt, no backtracking.
 * Runs on a CPU pool thread (plugins/discovery/tasks.ts).
 */

export const ROBOTS_LIMITS = { maxBytes: 512 * 1024, maxRules: 1000, maxPattern: 2048, maxSitemaps: 50 };

export interface RobotsRule {
  allow: boolean;
  /** The path pattern, percent-encoded as URLs are. */
  pattern: string;
}

export interface RobotsRules {
  rules: RobotsRule[];
  sitemaps: string[];
  /** Rules left out by the caps (said in notes, never an error). */
  ignored: number;
}

/** Non-ASCII characters percent-encoded, so a pattern compares with a URL's path as the RFC says. */
function encodePattern(p: string): string {
  return p.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** The rules of the group for `agent` (its product token, case-insensitive), else of `*`, and the sitemaps. */
export function parseRobots(text: string, agent: string): RobotsRules {
  const token = agent.split('/')[0].toLowerCase();
  const mine: RobotsRule[] = [], star: RobotsRule[] = [];
  let named = false;
  const sitemaps: string[] = [];
  let ignored = 0;
  let agents: string[] = [];
  let inRules = false;
  const lines = text.slice(0, ROBOTS_LIMITS.maxBytes).split(/\r\n|\r|\n/);
  if (text.length > ROBOTS_LIMITS.maxBytes) lines.pop(); // cut short: its last line may be half a rule
  for (const raw of lines) {
    const line = raw.replace(/#.*/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 1) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (inRules) agents = []; // a new group starts
      inRules = false;
      const name = value.split('/')[0].toLowerCase();
      agents.push(name);
      if (name === token) named = true;
    } else if (key === 'allow' || key === 'disallow') {
      inRules = true;
      if (!value) continue; // an empty rule allows everything: nothing to keep
      const rule = { allow: key === 'allow', pattern: encodePattern(value) };
      for (const [list, applies] of [[mine, agents.includes(token)], [star, agents.includes('*')]] as const) {
        if (!applies) continue;
        if (list.length >= ROBOTS_LIMITS.maxRules || rule.pattern.length > ROBOTS_LIMITS.maxPattern) ignored++;
        else list.push(rule);
      }
    } else if (key === 'sitemap' && sitemaps.length < ROBOTS_LIMITS.maxSitemaps) sitemaps.push(value);
  }
  return { rules: named ? mine : star, sitemaps, ignored };
}

/** Whether `pathAndQuery` may be fetched: the longest matching rule wins, `allow` on a tie (RFC 9309). */
export function robotsAllow(rules: readonly RobotsRule[], pathAndQuery: string): boolean {
  if (pathAndQuery === '/robots.txt') return true;
  let best: RobotsRule | null = null;
  for (const r of rules) {
    if (best && (r.pattern.length < best.pattern.length || (r.pattern.length === best.pattern.length && best.allow))) continue;
    if (matches(r.pattern, pathAndQuery)) best = r;
  }
  return best ? best.allow : true;
}

/** `*` matches any run of characters, a final `$` anchors at the end; linear in path plus pattern. */
export function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  // the first piece is a prefix
  if (!path.startsWith(parts[0])) return false;
  let at = parts[0].length;
  if (parts.length === 1) return !anchored || at === path.length;
  for (let i = 1; i < parts.length; i++) {
    const piece = parts[i];
    if (!piece) continue;
    if (anchored && i === parts.length - 1) {
      // the last piece must end the path, after what matched so far
      return path.length - piece.length >= at && path.endsWith(piece);
    }
    const found = kmpIndexOf(path, piece, at);
    if (found < 0) return false;
    at = found + piece.length; // leftmost placement is never worse for the pieces after it
  }
  return true;
}

/** First index of `needle` in `hay` at or after `from`, in O(|hay| + |needle|). */
function kmpIndexOf(hay: string, needle: string, from: number): number {
  const fail = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1];
    if (needle[i] === needle[k]) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < hay.length; i++) {
    while (k > 0 && hay[i] !== needle[k]) k = fail[k - 1];
    if (hay[i] === needle[k]) k++;
    if (k === needle.length) return i - needle.length + 1;
  }
  return -1;
}
