/**
 * The bytes of a message being read, kept as the chunks that hold them until the message is
 * whole: both framings' decoders hold a partial message this way.
 *
 * @module
 */

/*
 * Both decoders are linear in bytes, however the stream cuts them: each byte is scanned once (a
 * scan resumes where the last chunk's stopped), and a message is copied once, when its last byte
 * has come, from the list of chunks that hold it. A message whole within one chunk is not copied
 * at all: it is decoded where it lies. (Joining each chunk to the bytes pending, and scanning them
 * from the front again, made a 4 MiB message sent in 1 KiB chunks cost seconds where, sent at
 * once, it cost milliseconds.)
 */

/** The bytes of a message so far: chunks kept as they came, joined once the message is whole. */
export class Parts {
  private chunks: Uint8Array[] = [];
  /** Bytes held. */
  length = 0;

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The bytes held followed by `tail`, as one array (copied once), and nothing held after. */
  join(tail: Uint8Array): Uint8Array {
    const out = new Uint8Array(this.length + tail.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    out.set(tail, at);
    this.clear();
    return out;
  }

  /** The last byte held, if any. */
  last(): number | undefined {
    const chunk = this.chunks[this.chunks.length - 1];
    return chunk?.[chunk.length - 1];
  }

  clear(): void {
    this.chunks = [];
    this.length = 0;
  }
}
