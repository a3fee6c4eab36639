// The TensorBoard event messages, parsed by protobufjs. Field names and numbers follow
// tensorboard/compat/proto/{event,summary,tensor,tensor_shape,types}.proto (a unit test
// checks them against the descriptors of the installed Python `tensorboard` package).
// Only the messages a scalar reader needs are spelled out; every other field is skipped.
import * as protobuf from 'protobufjs';

// int64 fields decode to JS numbers (steps never exceed 2^53), not Long objects.
protobuf.util.Long = null as unknown as typeof protobuf.util.Long;
protobuf.configure();

const PROTO = `
syntax = "proto3";
package tensorboard;

message Event {
  double wall_time = 1;
  int64 step = 2;
  oneof what {
    string file_version = 3;
    bytes graph_def = 4;
    Summary summary = 5;
    bytes log_message = 6;
    bytes session_log = 7;
    bytes tagged_run_metadata = 8;
    bytes meta_graph_def = 9;
  }
  SourceMetadata source_metadata = 10;
}

message SourceMetadata {
  string writer = 1;
}

message Summary {
  message Value {
    string node_name = 7;
    string tag = 1;
    SummaryMetadata metadata = 9;
    // The oneof matters: without it a simple_value of exactly 0.0 is indistinguishable from absent.
    oneof value {
      float simple_value = 2;
      bytes obsolete_old_style_histogram = 3;
      bytes image = 4;
      bytes histo = 5;
      bytes audio = 6;
      TensorProto tensor = 8;
    }
  }
  repeated Value value = 1;
}

message SummaryMetadata {
  message PluginData {
    string plugin_name = 1;
    bytes content = 2;
  }
  PluginData plugin_data = 1;
  string display_name = 2;
  string summary_description = 3;
  DataClass data_class = 4;
}

enum DataClass {
  DATA_CLASS_UNKNOWN = 0;
  DATA_CLASS_SCALAR = 1;
  DATA_CLASS_TENSOR = 2;
  DATA_CLASS_BLOB_SEQUENCE = 3;
}

message TensorShapeProto {
  message Dim {
    int64 size = 1;
    string name = 2;
  }
  repeated Dim dim = 2;
  bool unknown_rank = 3;
}

message TensorProto {
  DataType dtype = 1;
  TensorShapeProto tensor_shape = 2;
  int32 version_number = 3;
  bytes tensor_content = 4;
  repeated int32 half_val = 13 [packed = true];
  repeated float float_val = 5 [packed = true];
  repeated double double_val = 6 [packed = true];
  repeated int32 int_val = 7 [packed = true];
  repeated bytes string_val = 8;
  repeated int64 int64_val = 10 [packed = true];
  repeated bool bool_val = 11 [packed = true];
  repeated uint32 uint32_val = 16 [packed = true];
  repeated uint64 uint64_val = 17 [packed = true];
}

enum DataType {
  DT_INVALID = 0;
  DT_FLOAT = 1;
  DT_DOUBLE = 2;
  DT_INT32 = 3;
  DT_UINT8 = 4;
  DT_INT16 = 5;
  DT_INT8 = 6;
  DT_STRING = 7;
  DT_COMPLEX64 = 8;
  DT_INT64 = 9;
  DT_BOOL = 10;
  DT_BFLOAT16 = 14;
  DT_UINT16 = 17;
  DT_HALF = 19;
  DT_UINT32 = 22;
  DT_UINT64 = 23;
}
`;

export const root = protobuf.parse(PROTO, { keepCase: true }).root;
export const EventType = root.lookupType('tensorboard.Event');
export const SummaryType = root.lookupType('tensorboard.Summary');
export const ValueType = root.lookupType('tensorboard.Summary.Value');
export const MetadataType = root.lookupType('tensorboard.SummaryMetadata');
export const TensorType = root.lookupType('tensorboard.TensorProto');
export const DataType = root.lookupEnum('tensorboard.DataType').values;

/** Protobuf wire types. */
export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;
/** The key a field is written with (field number and wire type), as the hot paths compare it. */
export const wireKey = (t: protobuf.Type, field: string, wire: number): number => (t.fields[field].id << 3) | wire;

export interface TensorShapeMsg {
  dim?: { size?: number }[];
}
export interface TensorMsg {
  dtype?: number;
  tensor_shape?: TensorShapeMsg;
  tensor_content?: Uint8Array;
  half_val?: number[];
  float_val?: number[];
  double_val?: number[];
  int_val?: number[];
  int64_val?: number[];
  bool_val?: boolean[];
  uint32_val?: number[];
  uint64_val?: number[];
}
export interface MetadataMsg {
  plugin_data?: { plugin_name?: string };
  data_class?: number;
}
