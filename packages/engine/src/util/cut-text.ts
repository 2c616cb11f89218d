/**
 * The first `maxUnits` UTF-16 code units of `text`, one fewer when the cut would fall inside a
 * surrogate pair: `slice(0, n)` can leave half of an emoji or an astral-plane character behind,
 * which no database can store as JSON and no client can render. Combining marks may be split from
 * their base letter; each half is still valid text.
 */
export function cutText(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  const end = Math.max(0, maxUnits);
  return isHighSurrogate(text.charCodeAt(end - 1)) ? text.slice(0, end - 1) : text.slice(0, end);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
