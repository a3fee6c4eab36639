// Where decoded scalars go: the one interface the decoders (scalars.ts, event-decoder.ts) and
// the learned shapes (event-shapes.ts) all write to, in a module of its own so that none of
// them imports another for it.

export interface ScalarSink {
  /** `tagId` is a small integer, the same for equal tags of one decoder (a cheap map key). */
  add(tag: string, step: number, wallTime: number, value: number, tagId: number): void;
}
