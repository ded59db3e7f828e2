/**
 * ETags of bulk answers by a text (a context, a request body), for one compiled specs. Bounded in
 * entries and in the characters of its keys together: a context may be up to 64 KB, and a caller
 * sending many large distinct ones must not make the console keep gigabytes. Past either bound it
 * starts over (a client then gets one 200 instead of a 304).
 */
export class KeptTags {
  private readonly tags = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly maxEntries = 20_000,
    private readonly maxChars = 8 * 1024 * 1024,
  ) {}

  get(key: string): string | undefined {
    return this.tags.get(key);
  }

  set(key: string, etag: string): void {
    if (this.tags.has(key)) {
      this.tags.set(key, etag);
      return;
    }
    if (key.length > this.maxChars) return;
    if (this.tags.size >= this.maxEntries || this.chars + key.length > this.maxChars) {
      this.tags.clear();
      this.chars = 0;
    }
    this.tags.set(key, etag);
    this.chars += key.length;
  }

  get size(): number {
    return this.tags.size;
  }
}
