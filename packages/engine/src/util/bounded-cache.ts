/**
 * The value kept in `cache` for `key`, made by `make` the first time it is asked for. A cache that
 * holds `limit` values is emptied before the next is kept: memory stays bounded, and a read costs
 * no bookkeeping (what the answer path keeps is asked for again and again within a few requests).
 */
export function cachedIn<K, V>(cache: Map<K, V>, key: K, limit: number, make: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    if (cache.size >= limit) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * The value kept with `key` (an object of the book's, such as a block) in `cache`, made by `make`
 * the first time it is asked for; it goes when the key does.
 */
export function keptWith<K extends object, V>(
  cache: WeakMap<K, V>,
  key: K,
  make: (key: K) => V,
): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    cache.set(key, value);
  }
  return value;
}
