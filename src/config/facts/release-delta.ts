// The shape of one Trinity-RFT release's differences from the release before (trinity-0.6.ts is
// one): apart from releases.ts, which applies the deltas, so that a delta does not import the
// module that imports it.
import type { SchemaNode } from './schema-node';
import type { Doc } from './nodes';

/** A change to a field the release before already had. */
export interface FieldChange {
  cls: string;
  key: string;
  doc?: Doc;
  /** The new default (the old one is kept in `x-until`). */
  default?: unknown;
  /** Whether the field now takes null (the old state is kept in `x-until`). */
  nullable?: boolean;
  /** Defaults where this release's stored lines disagree (line id → default). */
  defaultBy?: Record<string, unknown>;
  /** Only these stored lines still have the key (the others removed it). */
  onlyIn?: string[];
  /** The field, a nested dataclass before, is now a free mapping (`dict`). */
  free?: true;
  /** More annotations for the field (see schema-node.ts). */
  extra?: Partial<SchemaNode>;
}

export interface ReleaseDelta {
  version: string;
  /** New dataclasses (definitions), referenced by new keys. */
  classes?: Record<string, SchemaNode>;
  /** New fields per dataclass (x-class). */
  keys: Record<string, Record<string, SchemaNode>>;
  /** New values of an enum (`x-enum`) or of a checked string field (`x-choices`). */
  values: { cls: string; key: string; add: string[]; doc?: Doc }[];
  /** Changed documentation, defaults, nullability or presence of existing fields. */
  changes: FieldChange[];
  /** New names per registry (RegistryId → name → doc). */
  registries: Record<string, Record<string, Doc>>;
  /** Changed docs of existing registry names. */
  registryDocs?: Record<string, Record<string, Doc>>;
  /** Environment variables the release reads. */
  env?: Record<string, Doc>;
}
