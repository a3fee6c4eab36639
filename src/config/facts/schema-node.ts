// The shape of our JSON-schema nodes (schemas/*.json and the Trinity schema built from the
// release lines): plain JSON Schema plus our `x-` annotations. Here, below both, because the
// release data (facts/) is written in these nodes and the navigator (schema/) reads them.

/** A JSON-schema object with our `x-` annotations (see schemas/*.json). */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  description?: string;
  'x-zh'?: string;
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  enum?: unknown[];
  'x-py'?: 'int' | 'float' | 'bool' | 'str' | 'enum' | 'any';
  'x-enum'?: { values: string[]; aliases: Record<string, string>; caseInsensitive: boolean };
  'x-choices'?: string[];
  'x-registry'?: string;
  'x-path'?: 'model' | 'dataset' | 'file' | 'dir';
  'x-ref'?: 'workflow' | 'judge';
  'x-class'?: string;
  'x-doNotSet'?: boolean;
  'x-deprecated'?: string;
  'x-dead'?: string;
  'x-since'?: string;
  /** Enum / choice values added by a later release: value → release. */
  'x-value-since'?: Record<string, string>;
  /** Only the `x-choices` values are accepted (ASTuner / AgentJet fields compared with `==`). */
  'x-strictChoices'?: boolean;
  'x-nullable'?: boolean;
  /** From this release, unknown keys below this field are dropped by one stored validator and
   *  rejected by another (`x-unknown-ignored-by` / `x-unknown-rejected-by` name them). */
  'x-unknown-ignored-since'?: string;
  'x-free'?: boolean;
  'x-warnUnknown'?: boolean;
  [k: string]: unknown;
}

export interface RootSchema extends SchemaNode {
  $id: string;
  definitions?: Record<string, SchemaNode>;
  'x-trinity-version'?: string;
  'x-trinity-versions'?: string[];
  'x-removed-keys'?: Record<string, Record<string, { since: string; until: string }>>;
}
