/** The one command that regenerates every generated region and snapshot. */
export const GEN_COMMAND = 'pnpm --filter @toolhost/docs gen';

/** The opening marker of a generated region. */
export function beginMarker(name: string): string {
  return `<!-- BEGIN GENERATED ${name}: rendered from the registry by \`${GEN_COMMAND}\`; do not edit by hand -->`;
}

/** The closing marker of a generated region. */
export function endMarker(name: string): string {
  return `<!-- END GENERATED ${name} -->`;
}

/** Where a region sits in a document: the body between its markers, and the offsets around it. */
export interface RegionLocation {
  readonly body: string;
  /** Offset of the first character of the body (just after the opening marker's line). */
  readonly start: number;
  /** Offset of the closing marker. */
  readonly end: number;
}

/**
 * Finds a generated region. Returns `undefined` when a marker is missing, and throws when a marker
 * appears twice or the end comes before the begin (a hand edit broke the document's structure).
 */
export function findRegion(text: string, name: string): RegionLocation | undefined {
  const begin = beginMarker(name);
  const end = endMarker(name);
  const beginAt = text.indexOf(begin);
  const endAt = text.indexOf(end);
  if (beginAt === -1 || endAt === -1) return undefined;
  if (text.indexOf(begin, beginAt + 1) !== -1 || text.indexOf(end, endAt + 1) !== -1) {
    throw new Error(`generated region "${name}" appears more than once`);
  }
  // The body starts on the line after the opening marker.
  const start = beginAt + begin.length + 1;
  if (endAt < start) throw new Error(`generated region "${name}" ends before it begins`);
  return { body: text.slice(start, endAt), start, end: endAt };
}

/** The names of every generated region in a document, in order. */
export function regionNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/<!-- BEGIN GENERATED ([a-z0-9-]+):/g)) names.push(match[1]!);
  return names;
}

/**
 * Replaces the body of each named region with its rendered text (which gets a trailing newline).
 * Throws when a region's markers are missing: the generator never invents a document's structure.
 */
export function replaceRegions(text: string, bodies: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [name, body] of Object.entries(bodies)) {
    const location = findRegion(out, name);
    if (!location) {
      throw new Error(
        `the document has no generated region "${name}"; add the lines\n${beginMarker(name)}\n${endMarker(name)}\nwhere the region belongs, then run ${GEN_COMMAND}`,
      );
    }
    out = `${out.slice(0, location.start)}${regionBody(body)}${out.slice(location.end)}`;
  }
  return out;
}

/** A rendered body as it sits between the markers: its text and exactly one newline. */
export function regionBody(body: string): string {
  return `${body.replace(/\n+$/, '')}\n`;
}
