/** Rough token count (≈ 4 characters per token for English prose and code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
