/**
 * The template layer (DESIGN §5): DSL schema and validation, placeholders, filters, conditions,
 * data binding and field extraction. Layout reads bound nodes only.
 */
export type * from './types.ts';
export { parseTemplate, validateTemplate, templateSchema, nodeSchema, conditionSchema, formatPath, NODE_KINDS, PAGE_SIZE_NAMES } from './schema.ts';
export type { ParseTemplateResult, NodeKind } from './schema.ts';
export { parseColor, isColor, CSS_COLORS } from './colors.ts';
export {
  parseString,
  parsePath,
  checkString,
  checkPath,
  hasPlaceholder,
  placeholdersOf,
  isDangerousKey,
  DANGEROUS_KEYS,
  BUILTINS,
} from './placeholders.ts';
export type { DataPath, Placeholder, ParsedString, StringPart, PathSegment, BuiltinName } from './placeholders.ts';
export { resolvePath, getOwn, createScope, enterLoop } from './path.ts';
export type { Scope, LoopFrame } from './path.ts';
export {
  applyFilter,
  applyFilters,
  formatNumber,
  formatCurrency,
  formatDate,
  checkDatePattern,
  checkFilterArgs,
  resolveLocale,
  isLanguageTag,
  toText,
  isBlank,
  FILTER_NAMES,
  DEFAULT_CURRENCY,
  DEFAULT_LANGUAGE,
} from './filters.ts';
export type { FilterName, FilterArg, FilterCall } from './filters.ts';
export { evaluateCondition, isTruthy, compareValues, valuesEqual, COMPARISONS, CONDITION_KEYS } from './conditions.ts';
export type { ComparisonOp } from './conditions.ts';
export { bindNodes, bindString, bindValue, bindMetadata } from './bind.ts';
export type { BindNodesOptions } from './bind.ts';
export { templateFields } from './fields.ts';
