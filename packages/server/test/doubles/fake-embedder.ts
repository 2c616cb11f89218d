import type { Embedder } from "@lectern/engine/search/embedder";

/** Words of one concept (synonyms) share a dimension, so meaning matches where words do not. */
const CONCEPTS: Record<string, number> = {
  car: 0,
  automobile: 0,
  vehicle: 0,
  motor: 1,
  engine: 1,
  upkeep: 2,
  maintenance: 2,
  servicing: 2,
  bicycle: 3,
  bike: 3,
  chain: 4,
  lubrication: 5,
  oil: 5,
  grease: 5,
};

export interface FakeEmbedder extends Embedder {
  /** Every batch of texts the embedder was asked for, in order. */
  readonly calls: string[][];
}

/**
 * A deterministic embedder that records its calls. Concept words (car/automobile/vehicle,
 * motor/engine, …) share a dimension; every other word lands in one of the hashed dimensions
 * from 8 up, as in a bag-of-words vector. Vectors are unit length.
 */
export function createFakeEmbedder(dimensions = 32): FakeEmbedder {
  const calls: string[][] = [];
  return {
    provider: "test",
    modelId: `concepts-${dimensions}`,
    dimensions,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}

function embedText(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z_]+/g) ?? []) {
    const concept = CONCEPTS[word];
    let slot = concept;
    if (slot === undefined) {
      let hash = 7;
      for (const character of word) hash = (hash * 31 + character.charCodeAt(0)) % 1_000_003;
      slot = 8 + (hash % (dimensions - 8));
    }
    vector[slot] = (vector[slot] ?? 0) + (concept === undefined ? 0.3 : 1);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}
