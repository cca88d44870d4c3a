/** The longest handle allowed, the same limit as the Agent Skills format's `name`. */
export const MAX_HANDLE_LENGTH = 64;

const HANDLE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** True for a valid handle: lower-case `a-z0-9` runs joined by single hyphens, at most 64 characters. */
export function isValidHandle(handle: string): boolean {
  return handle.length > 0 && handle.length <= MAX_HANDLE_LENGTH && HANDLE_PATTERN.test(handle);
}

/** Why a proposed handle is not valid, in words a person can act on; undefined when it is valid. */
export function handleProblem(handle: string): string | undefined {
  if (handle.length === 0) return "A handle cannot be empty.";
  if (handle.length > MAX_HANDLE_LENGTH) {
    return `A handle has at most ${MAX_HANDLE_LENGTH} characters; "${handle}" has ${handle.length}.`;
  }
  if (/[A-Z]/.test(handle) && isValidHandle(handle.toLowerCase())) {
    return `A handle is lower-case: use "${handle.toLowerCase()}".`;
  }
  if (!HANDLE_PATTERN.test(handle)) {
    return `"${handle}" is not a valid handle: use lower-case letters and digits joined by single hyphens (like meeting-prep).`;
  }
  return undefined;
}

/** Slugs are compared case-insensitively; this is the key under which one is stored. */
export function slugKey(slug: string): string {
  // Nearly every slug is in lower case already: answered as it is, not copied (a listing's 10,000 handles).
  for (let i = 0; i < slug.length; i++) {
    const code = slug.charCodeAt(i);
    if ((code >= 65 && code <= 90) || code >= 128) return slug.toLowerCase();
  }
  return slug;
}

/**
 * Kebab-cases a title: lower-case, every run of characters outside `a-z0-9` becomes one hyphen, trimmed,
 * cut to the length limit at a hyphen where possible. Letters with accents lose them (é → e) first, so a
 * French title still reads; a title with nothing usable gives "skill".
 */
export function kebabCase(title: string): string {
  const plain = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  let slug = plain.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (slug.length > MAX_HANDLE_LENGTH) {
    // A cut right before a hyphen already ends on a whole word; otherwise drop the word it cuts in two.
    const head = slug.slice(0, MAX_HANDLE_LENGTH);
    slug = slug.charAt(MAX_HANDLE_LENGTH) === "-" ? head : head.replace(/-+[a-z0-9]*$/, "") || head;
    slug = slug.replace(/-+$/, "");
  }
  return slug.length > 0 ? slug : "skill";
}

/**
 * Mints a handle for a title (the seed's `makeSlug`): the kebab-cased title, or on a collision the first free
 * `-2`, `-3`, … suffix. `isTaken` answers for tools and other skills; `current`, the handle the skill already
 * has, is never a collision with itself, so an unchanged title keeps its slug.
 */
export function makeSlug(title: string, isTaken: (slug: string) => boolean, current?: string): string {
  const base = kebabCase(title);
  const free = (slug: string) => (current !== undefined && slugKey(current) === slug) || !isTaken(slug);
  if (free(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const stem = base.slice(0, MAX_HANDLE_LENGTH - suffix.length).replace(/-+$/, "");
    const candidate = `${stem}${suffix}`;
    if (free(candidate)) return candidate;
  }
}

/** The default display name of a handle: its words, capitalised (`check-schedule` → "Check Schedule"). */
export function titleFromHandle(handle: string): string {
  return handle
    .split("-")
    .filter((word) => word.length > 0)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}
