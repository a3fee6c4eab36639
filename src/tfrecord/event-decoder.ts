// The full decode of one serialized tensorboard.Event: walks Event → Summary → Value with
// protobufjs's Reader, using the field numbers of the parsed message definitions, and hands any
// nested message it needs (metadata, tensor) to the protobufjs-generated decoders. Everything
// else is skipped by wire type. It notes where the variable fields were (the layout), from
// which ScalarDecoder (scalars.ts) learns the record's shape (event-shapes.ts).
import type * as protobuf from 'protobufjs';
import {
  EventType,
  MetadataMsg,
  MetadataType,
  SummaryType,
  TensorMsg,
  TensorType,
  ValueType,
  WIRE_I32,
  WIRE_I64,
  WIRE_LEN,
  WIRE_VARINT,
  wireKey,
} from './event-proto';
import type { EventLayout } from './event-shapes';
import type { ScalarSink } from './scalar-sink';
import { TagEntry, TagInterner } from './tag-interner';
import { locateTensorValue, tensorScalar } from './tensor-value';

const EV_WALL = wireKey(EventType, 'wall_time', WIRE_I64);
const EV_STEP = wireKey(EventType, 'step', WIRE_VARINT);
const EV_SUMMARY = wireKey(EventType, 'summary', WIRE_LEN);
const SUM_VALUE = wireKey(SummaryType, 'value', WIRE_LEN);
const VAL_TAG = wireKey(ValueType, 'tag', WIRE_LEN);
const VAL_SIMPLE = wireKey(ValueType, 'simple_value', WIRE_I32);
const VAL_METADATA = wireKey(ValueType, 'metadata', WIRE_LEN);
const VAL_TENSOR = wireKey(ValueType, 'tensor', WIRE_LEN);

/**
 * Decodes events one by one. Keeps, per tag, the plugin named by the first metadata seen (TF2
 * may write it only once per tag), so histograms or text written as tensors are never taken
 * for scalars.
 */
export class EventDecoder {
  private readonly tags = new TagInterner();
  private readonly plugins = new Map<string, string>();
  /** Where the last decode() found the variable fields. */
  readonly layout: EventLayout = { wallPos: -1, stepPos: -1, stepEnd: -1, wall: 0, step: 0, values: [], learnable: true };

  /** `onPlugin`: a tag got its plugin (shapes learned for its tensor values assumed it had none). */
  constructor(private readonly onPlugin: () => void) {}

  /**
   * Decodes the Event in buf[start, end) (r positioned over buf) and adds its scalars to sink;
   * records in this.layout where the variable fields were. Returns the number of scalars;
   * throws (a RangeError or Error from protobufjs) on a malformed record.
   */
  decode(r: protobuf.Reader, buf: Buffer, start: number, end: number, sink: ScalarSink): number {
    const layout = this.layout;
    layout.wallPos = layout.stepPos = layout.stepEnd = -1;
    layout.values.length = 0;
    layout.learnable = true;
    r.pos = start;
    r.len = end;
    let wall = 0;
    let step = 0;
    let summaryStart = -1;
    let summaryEnd = -1;
    while (r.pos < end) {
      const k = r.uint32();
      if (k === EV_WALL) {
        layout.wallPos = r.pos - start;
        wall = r.double();
      } else if (k === EV_STEP) {
        layout.stepPos = r.pos - start;
        step = r.int64() as unknown as number;
        layout.stepEnd = r.pos - start;
      } else if (k === EV_SUMMARY) {
        const n = r.uint32();
        summaryStart = r.pos;
        summaryEnd = summaryStart + n;
        if (summaryEnd > end) throw new RangeError('summary overruns the record');
        r.pos = summaryEnd;
      } else this.skip(r, k);
    }
    if (r.pos !== end) throw new RangeError('event overruns the record');
    layout.wall = wall;
    layout.step = step;
    if (summaryStart < 0) return 0;
    // The summary may precede step/wall_time on the wire, so it is read after the event fields.
    let count = 0;
    r.pos = summaryStart;
    r.len = summaryEnd;
    while (r.pos < summaryEnd) {
      const k = r.uint32();
      if (k !== SUM_VALUE) {
        this.skip(r, k);
        continue;
      }
      const vEnd = r.uint32() + r.pos;
      if (vEnd > summaryEnd) throw new RangeError('value overruns the summary');
      r.len = vEnd;
      let tag: TagEntry | undefined;
      let value: number | undefined;
      let valuePos = -1;
      let valueFields = 0;
      let tensor: TensorMsg | undefined;
      let tensorStart = -1;
      let tensorEnd = -1;
      let meta: MetadataMsg | undefined;
      while (r.pos < vEnd) {
        const vk = r.uint32();
        if (vk === VAL_TAG) {
          const n = r.uint32();
          if (r.pos + n > vEnd) throw new RangeError('tag overruns the value');
          tag = this.tags.intern(buf, r.pos, n);
          r.pos += n;
        } else if (vk === VAL_SIMPLE) {
          valueFields++;
          valuePos = r.pos;
          value = r.float();
          tensor = undefined;
        } else if (vk === VAL_TENSOR) {
          valueFields++;
          const n = r.uint32();
          tensorStart = r.pos;
          tensorEnd = r.pos + n;
          tensor = TensorType.decode(r, n) as unknown as TensorMsg;
          value = undefined;
        } else if (vk === VAL_METADATA) {
          meta = MetadataType.decode(r, r.uint32()) as unknown as MetadataMsg;
        } else this.skip(r, vk);
      }
      r.len = summaryEnd;
      if (tag === undefined) continue;
      if (meta?.plugin_data?.plugin_name && !this.plugins.has(tag.tag)) {
        this.plugins.set(tag.tag, meta.plugin_data.plugin_name);
        this.onPlugin();
      }
      if (tensor) {
        const plugin = this.plugins.get(tag.tag);
        if (plugin !== undefined && plugin !== 'scalars') continue;
        value = tensorScalar(tensor);
      }
      if (value === undefined) continue;
      sink.add(tag.tag, step, wall, value, tag.id);
      count++;
      if (!layout.learnable) continue;
      let at: { pos: number; wide: boolean } | undefined = { pos: valuePos, wide: false };
      if (tensor) {
        const resume = r.pos;
        try {
          at = locateTensorValue(r, tensorStart, tensorEnd, tensor);
        } catch {
          at = undefined;
        }
        r.pos = resume;
        r.len = summaryEnd;
      }
      if (valueFields !== 1 || at === undefined) layout.learnable = false;
      else layout.values.push({ pos: at.pos - start, wide: at.wide, tag, value });
    }
    r.len = end;
    return count;
  }

  private skip(r: protobuf.Reader, k: number): void {
    const wire = k & 7;
    if (k >>> 3 === 0 || wire === 3 || wire === 4 || wire > 5) throw new Error(`invalid wire key ${k}`);
    r.skipType(wire);
  }
}
