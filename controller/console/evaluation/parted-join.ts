/**
 * `open + items.join(',') + close`, built in parts of about `partChars` characters: the parts joined
 * are that text. Each part is one join of the items it holds (no rope of one node per item), and
 * none grows past `partChars` plus one item.
 */
export class PartedJoin {
  private readonly parts: string[] = [];
  private run: string[] = [];
  private chars = 0;

  constructor(
    private readonly open: string,
    private readonly close: string,
    private readonly partChars: number,
  ) {}

  add(item: string): void {
    this.run.push(item);
    this.chars += item.length + 1;
    if (this.chars >= this.partChars) {
      this.parts.push((this.parts.length === 0 ? this.open : ',') + this.run.join(','));
      this.run = [];
      this.chars = 0;
    }
  }

  /** The parts, the last one closing the text. */
  finish(): string[] {
    const lead = this.parts.length === 0 ? this.open : this.run.length > 0 ? ',' : '';
    this.parts.push(lead + this.run.join(',') + this.close);
    this.run = [];
    this.chars = 0;
    return this.parts;
  }
}
