import type { Node } from 'web-tree-sitter';
import type { CodeLanguage } from './code-languages.js';

// Which nodes of each grammar are definitions. Written by hand rather than with the grammars'
// tags.scm queries: the npm packages ship only the compiled grammars, and a deletion needs more
// than a tag (the declaration a Go spec sits in, a Python decorator wrapper, an export keyword, the
// doc comment above). Only containers are descended into (classes, interfaces, namespaces, impl
// blocks, modules, preprocessor conditionals), never function bodies, so extraction costs a small
// fraction of the parse.

/** What a definition is. */
export type SymbolKind =
  | 'function'
  | 'method'
  | 'constructor'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'union'
  | 'trait'
  | 'type'
  | 'module'
  | 'namespace'
  | 'variable'
  | 'constant'
  | 'field'
  | 'property'
  | 'macro';

/** Every {@link SymbolKind}, in a fixed order. */
export const SYMBOL_KINDS: readonly SymbolKind[] = Object.freeze([
  'function',
  'method',
  'constructor',
  'class',
  'interface',
  'struct',
  'enum',
  'union',
  'trait',
  'type',
  'module',
  'namespace',
  'variable',
  'constant',
  'field',
  'property',
  'macro',
]);

/** One definition found in a file. */
export interface CodeSymbol {
  readonly name: string;
  readonly kind: SymbolKind;
  /** The enclosing definitions joined with "." (a class, a Go method's receiver type, a Rust impl's type), if any. */
  readonly container?: string;
  /** First line (1-based) of the definition, decorators and export keyword included, doc comment excluded. */
  readonly startLine: number;
  /** Last line (1-based). */
  readonly endLine: number;
}

/** A definition with the text a deletion would remove. */
export interface SymbolSpan extends CodeSymbol {
  /** UTF-16 offset where the deletion starts: the attached doc comment, decorators and export keyword included. */
  readonly start: number;
  /** UTF-16 offset where it ends (a trailing `;` token included). */
  readonly end: number;
  /** Other names declared by the same declaration (`var a, b = 1, 2`): the definition cannot be deleted alone. */
  readonly sharedWith?: readonly string[];
  /** A TypeScript overload signature (merged into the implementation that follows it). */
  readonly signature?: boolean;
}

const MAX_CONTAINER_DEPTH = 64;
const COMMENT_TYPES: ReadonlySet<string> = new Set(['comment', 'line_comment', 'block_comment']);
const DECORATION_TYPES: ReadonlySet<string> = new Set([
  'attribute_item',
  'decorator',
  'marker_annotation',
  'annotation',
]);

interface Visit {
  readonly container: string | undefined;
  readonly depth: number;
  /** Inside a class-like body (functions are methods there). */
  readonly inType: boolean;
}

/** Collects the symbols of one tree. */
class Collector {
  readonly symbols: SymbolSpan[] = [];
  constructor(
    readonly text: string,
    readonly language: CodeLanguage,
  ) {}

  emit(
    kind: SymbolKind,
    name: string | undefined,
    node: Node,
    visit: Visit,
    options: { span?: Node; sharedWith?: readonly string[]; signature?: boolean } = {},
  ): void {
    if (!name) return;
    const span = options.span ?? node;
    const { start, firstRow } = this.attachedStart(span);
    let end = span.endIndex;
    const next = span.nextSibling;
    if (next && !next.isNamed && next.type === ';' && next.startPosition.row === span.endPosition.row)
      end = next.endIndex;
    this.symbols.push({
      name,
      kind,
      ...(visit.container ? { container: visit.container } : {}),
      startLine: firstRow + 1,
      // A node that ends with its line break (a C macro) ends on the line before.
      endLine:
        span.endPosition.column === 0 && span.endPosition.row > span.startPosition.row
          ? span.endPosition.row
          : span.endPosition.row + 1,
      start,
      end,
      ...(options.sharedWith && options.sharedWith.length > 0 ? { sharedWith: options.sharedWith } : {}),
      ...(options.signature ? { signature: true } : {}),
    });
  }

  /**
   * Where a definition's deletion starts: the first of the comments, decorators (a TypeScript class
   * body's), attributes (Rust) and annotations directly above it, each starting its own line, with
   * no blank line in between. `firstRow` is the first row of the definition itself, decorators and
   * attributes included, comments not.
   */
  attachedStart(node: Node): { start: number; firstRow: number } {
    let start = node.startIndex;
    let row = node.startPosition.row;
    let firstRow = row;
    for (let previous = node.previousSibling; previous; previous = previous.previousSibling) {
      const comment = COMMENT_TYPES.has(previous.type);
      const decoration = DECORATION_TYPES.has(previous.type);
      if (!comment && !decoration) break;
      if (previous.endPosition.row < row - 1) break;
      // A comment that ends a line of code belongs to that code, not to the definition below.
      if (!this.startsLine(previous.startIndex)) break;
      start = previous.startIndex;
      row = previous.startPosition.row;
      if (decoration) firstRow = row;
    }
    return { start, firstRow };
  }

  startsLine(index: number): boolean {
    for (let at = index - 1; at >= 0; at--) {
      const code = this.text.charCodeAt(at);
      if (code === 10 || code === 13) return true;
      if (code !== 32 && code !== 9) return false;
    }
    return true;
  }
}

function textOf(node: Node | null | undefined): string | undefined {
  return node ? node.text : undefined;
}

function nameOf(node: Node, field = 'name'): string | undefined {
  return textOf(node.childForFieldName(field));
}

function inner(visit: Visit, name: string | undefined, inType = true): Visit | undefined {
  if (visit.depth >= MAX_CONTAINER_DEPTH) return undefined;
  return {
    container: name ? (visit.container ? `${visit.container}.${name}` : name) : visit.container,
    depth: visit.depth + 1,
    inType,
  };
}

function children(node: Node | null | undefined): Node[] {
  if (!node) return [];
  const result: Node[] = [];
  for (let index = 0; index < node.namedChildCount; index++) {
    const child = node.namedChild(index);
    if (child) result.push(child);
  }
  return result;
}

// --- TypeScript, TSX, JavaScript --------------------------------------------------------------

const TS_FUNCTION_VALUES: ReadonlySet<string> = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);

function visitScript(collector: Collector, node: Node, visit: Visit, wrapper?: Node): void {
  const span = wrapper ?? node;
  switch (node.type) {
    case 'program':
    case 'statement_block':
      for (const child of children(node)) visitScript(collector, child, visit);
      return;
    case 'export_statement': {
      const declaration = node.childForFieldName('declaration');
      if (declaration) visitScript(collector, declaration, visit, wrapper ?? node);
      return;
    }
    case 'ambient_declaration':
      for (const child of children(node)) visitScript(collector, child, visit, wrapper ?? node);
      return;
    case 'function_declaration':
    case 'generator_function_declaration':
      collector.emit('function', nameOf(node), node, visit, { span });
      return;
    case 'function_signature':
      collector.emit('function', nameOf(node), node, visit, { span, signature: true });
      return;
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class': {
      const name = nameOf(node);
      collector.emit('class', name, node, visit, { span });
      const body = inner(visit, name);
      if (body)
        for (const member of children(node.childForFieldName('body')))
          visitClassMember(collector, member, body);
      return;
    }
    case 'interface_declaration': {
      const name = nameOf(node);
      collector.emit('interface', name, node, visit, { span });
      const body = inner(visit, name);
      if (body)
        for (const member of children(node.childForFieldName('body')))
          visitClassMember(collector, member, body);
      return;
    }
    case 'type_alias_declaration':
      collector.emit('type', nameOf(node), node, visit, { span });
      return;
    case 'enum_declaration':
      collector.emit('enum', nameOf(node), node, visit, { span });
      return;
    case 'internal_module':
    case 'module': {
      const raw = nameOf(node);
      const name = raw?.replace(/^['"`]|['"`]$/g, '');
      collector.emit('namespace', name, node, visit, { span });
      const body = inner(visit, name, false);
      if (body) visitScript(collector, node.childForFieldName('body') ?? node, body);
      return;
    }
    case 'lexical_declaration':
    case 'variable_declaration': {
      const declarators = children(node).filter((child) => child.type === 'variable_declarator');
      const names = declarators.map((declarator) => declarator.childForFieldName('name'));
      const plain = names.map((name) => (name?.type === 'identifier' ? name.text : undefined));
      const constant = node.child(0)?.type === 'const';
      for (const [index, declarator] of declarators.entries()) {
        const name = plain[index];
        if (!name) continue;
        const value = declarator.childForFieldName('value');
        const kind: SymbolKind =
          value && TS_FUNCTION_VALUES.has(value.type) ? 'function' : constant ? 'constant' : 'variable';
        const others = plain.filter((other, at) => at !== index && other !== undefined) as string[];
        collector.emit(kind, name, declarator, visit, {
          span,
          ...(declarators.length > 1 ? { sharedWith: others.length > 0 ? others : ['(a pattern)'] } : {}),
        });
      }
      return;
    }
    default:
      return;
  }
}

function visitClassMember(collector: Collector, node: Node, visit: Visit): void {
  switch (node.type) {
    case 'method_definition':
    case 'abstract_method_signature':
    case 'method_signature': {
      const name = nameOf(node);
      collector.emit(name === 'constructor' ? 'constructor' : 'method', name, node, visit, {
        signature: node.type === 'method_signature',
      });
      return;
    }
    case 'public_field_definition':
    case 'field_definition':
    case 'property_signature':
      collector.emit('property', nameOf(node) ?? nameOf(node, 'property'), node, visit);
      return;
    default:
      return;
  }
}

// --- Python ---------------------------------------------------------------------------------------

function visitPython(collector: Collector, node: Node, visit: Visit, wrapper?: Node): void {
  const span = wrapper ?? node;
  switch (node.type) {
    case 'module':
    case 'block':
      for (const child of children(node)) visitPython(collector, child, visit);
      return;
    case 'decorated_definition': {
      const definition = node.childForFieldName('definition');
      if (definition) visitPython(collector, definition, visit, node);
      return;
    }
    case 'function_definition':
      collector.emit(visit.inType ? 'method' : 'function', nameOf(node), node, visit, { span });
      return;
    case 'class_definition': {
      const name = nameOf(node);
      collector.emit('class', name, node, visit, { span });
      const body = inner(visit, name);
      if (body) visitPython(collector, node.childForFieldName('body') ?? node, body);
      return;
    }
    case 'type_alias_statement':
      collector.emit('type', textOf(node.namedChild(0)), node, visit, { span });
      return;
    case 'expression_statement': {
      const assignment = node.namedChild(0);
      if (assignment?.type !== 'assignment') return;
      const left = assignment.childForFieldName('left');
      if (left?.type !== 'identifier') return;
      const chained: string[] = [];
      for (let right = assignment.childForFieldName('right'); right?.type === 'assignment'; ) {
        const target = right.childForFieldName('left');
        chained.push(target?.text ?? '(a pattern)');
        right = right.childForFieldName('right');
      }
      const name = left.text;
      const kind: SymbolKind = visit.inType
        ? 'field'
        : /^[A-Z][A-Z0-9_]*$/.test(name)
          ? 'constant'
          : 'variable';
      collector.emit(kind, name, node, visit, { sharedWith: chained });
      return;
    }
    default:
      return;
  }
}

// --- Go -------------------------------------------------------------------------------------------

/** The type name a Go receiver or a Rust impl names: `*Server` and `Gen[T]` give `Server` and `Gen`. */
function baseTypeName(node: Node | null | undefined): string | undefined {
  let current = node;
  for (let hops = 0; current && hops < 16; hops++) {
    switch (current.type) {
      case 'type_identifier':
      case 'identifier':
      case 'primitive_type':
        return current.text;
      case 'pointer_type':
      case 'parenthesized_type':
      case 'reference_type':
        current = current.childForFieldName('type') ?? current.namedChild(current.namedChildCount - 1);
        break;
      case 'generic_type':
        current = current.childForFieldName('type');
        break;
      case 'scoped_type_identifier':
      case 'qualified_type':
        current = current.childForFieldName('name');
        break;
      default:
        return current.text;
    }
  }
  return undefined;
}

function goSpecs(declaration: Node, types: readonly string[]): Node[] {
  const specs: Node[] = [];
  for (const child of children(declaration)) {
    if (types.includes(child.type)) specs.push(child);
    else if (child.type.endsWith('_spec_list'))
      specs.push(...children(child).filter((spec) => types.includes(spec.type)));
  }
  return specs;
}

function visitGo(collector: Collector, node: Node, visit: Visit): void {
  switch (node.type) {
    case 'source_file':
      for (const child of children(node)) visitGo(collector, child, visit);
      return;
    case 'function_declaration':
      collector.emit('function', nameOf(node), node, visit);
      return;
    case 'method_declaration': {
      const receiver = children(node.childForFieldName('receiver'))[0];
      const type = baseTypeName(receiver?.childForFieldName('type'));
      collector.emit('method', nameOf(node), node, type ? { ...visit, container: type } : visit);
      return;
    }
    case 'type_declaration': {
      const specs = goSpecs(node, ['type_spec', 'type_alias']);
      for (const spec of specs) {
        const type = spec.childForFieldName('type')?.type;
        const kind: SymbolKind =
          spec.type === 'type_spec' && type === 'struct_type'
            ? 'struct'
            : spec.type === 'type_spec' && type === 'interface_type'
              ? 'interface'
              : 'type';
        collector.emit(kind, nameOf(spec), spec, visit, { span: specs.length === 1 ? node : spec });
      }
      return;
    }
    case 'var_declaration':
    case 'const_declaration': {
      const constant = node.type === 'const_declaration';
      const specs = goSpecs(node, constant ? ['const_spec'] : ['var_spec']);
      for (const spec of specs) {
        const names = spec.childrenForFieldName('name').map((name) => name.text);
        for (const name of names)
          collector.emit(constant ? 'constant' : 'variable', name, spec, visit, {
            span: specs.length === 1 ? node : spec,
            sharedWith: names.filter((other) => other !== name),
          });
      }
      return;
    }
    default:
      return;
  }
}

// --- Rust -----------------------------------------------------------------------------------------

const RUST_ITEMS: Readonly<Record<string, SymbolKind>> = {
  struct_item: 'struct',
  enum_item: 'enum',
  union_item: 'union',
  type_item: 'type',
  const_item: 'constant',
  static_item: 'variable',
  macro_definition: 'macro',
};

function visitRust(collector: Collector, node: Node, visit: Visit): void {
  switch (node.type) {
    case 'source_file':
    case 'declaration_list':
      for (const child of children(node)) visitRust(collector, child, visit);
      return;
    case 'function_item':
    case 'function_signature_item':
      collector.emit(visit.inType ? 'method' : 'function', nameOf(node), node, visit);
      return;
    case 'trait_item': {
      const name = nameOf(node);
      collector.emit('trait', name, node, visit);
      const body = inner(visit, name);
      if (body) visitRust(collector, node.childForFieldName('body') ?? node, body);
      return;
    }
    case 'impl_item': {
      const type = baseTypeName(node.childForFieldName('type'));
      const body = inner(visit, type);
      if (body) visitRust(collector, node.childForFieldName('body') ?? node, body);
      return;
    }
    case 'mod_item': {
      const name = nameOf(node);
      collector.emit('module', name, node, visit);
      const body = inner(visit, name, false);
      const list = node.childForFieldName('body');
      if (body && list) visitRust(collector, list, body);
      return;
    }
    default: {
      const kind = RUST_ITEMS[node.type];
      if (kind) collector.emit(kind, nameOf(node), node, visit);
      return;
    }
  }
}

// --- Java -----------------------------------------------------------------------------------------

const JAVA_TYPES: Readonly<Record<string, SymbolKind>> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
};

function visitJava(collector: Collector, node: Node, visit: Visit): void {
  const typeKind = JAVA_TYPES[node.type];
  if (typeKind) {
    const name = nameOf(node);
    collector.emit(typeKind, name, node, visit);
    const body = inner(visit, name);
    if (body) visitJava(collector, node.childForFieldName('body') ?? node, body);
    return;
  }
  switch (node.type) {
    case 'program':
    case 'class_body':
    case 'interface_body':
    case 'enum_body':
    case 'enum_body_declarations':
    case 'annotation_type_body':
      for (const child of children(node)) visitJava(collector, child, visit);
      return;
    case 'method_declaration':
    case 'annotation_type_element_declaration':
      collector.emit('method', nameOf(node), node, visit);
      return;
    case 'constructor_declaration':
    case 'compact_constructor_declaration':
      collector.emit('constructor', nameOf(node), node, visit);
      return;
    case 'field_declaration':
    case 'constant_declaration': {
      const names = node.childrenForFieldName('declarator').map((declarator) => nameOf(declarator) ?? '');
      for (const name of names)
        collector.emit(node.type === 'constant_declaration' ? 'constant' : 'field', name, node, visit, {
          sharedWith: names.filter((other) => other !== name),
        });
      return;
    }
    default:
      return;
  }
}

// --- C and C++ ------------------------------------------------------------------------------------

const C_SPECIFIERS: Readonly<Record<string, SymbolKind>> = {
  struct_specifier: 'struct',
  union_specifier: 'union',
  enum_specifier: 'enum',
  class_specifier: 'class',
};

const C_CONTAINERS: ReadonlySet<string> = new Set([
  'translation_unit',
  'declaration_list',
  'preproc_if',
  'preproc_ifdef',
  'preproc_else',
  'preproc_elif',
  'preproc_elifdef',
]);

/** The function name inside a C declarator (`*make(int)`, `K::m()`, `~K()`), with a C++ scope when qualified. */
function cFunctionName(declarator: Node | null): { name: string; scope?: string } | undefined {
  let current = declarator;
  for (let hops = 0; current && hops < 32; hops++) {
    switch (current.type) {
      case 'function_declarator':
      case 'pointer_declarator':
      case 'reference_declarator':
      case 'parenthesized_declarator':
      case 'attributed_declarator':
        current = current.childForFieldName('declarator') ?? current.namedChild(current.namedChildCount - 1);
        break;
      case 'qualified_identifier': {
        const scope = textOf(current.childForFieldName('scope'));
        const name = cFunctionName(current.childForFieldName('name'));
        if (!name) return undefined;
        const joined = [scope, name.scope].filter(Boolean).join('::');
        return joined ? { name: name.name, scope: joined } : { name: name.name };
      }
      case 'identifier':
      case 'field_identifier':
      case 'destructor_name':
      case 'operator_name':
      case 'type_identifier':
        return { name: current.text };
      case 'template_function':
        current = current.childForFieldName('name');
        break;
      default:
        return undefined;
    }
  }
  return undefined;
}

/** Whether a C declarator declares a function (a prototype), through pointers and parentheses. */
function isFunctionDeclarator(declarator: Node): boolean {
  let current: Node | null = declarator;
  for (let hops = 0; current && hops < 32; hops++) {
    if (current.type === 'function_declarator') return true;
    if (
      ![
        'pointer_declarator',
        'parenthesized_declarator',
        'reference_declarator',
        'attributed_declarator',
      ].includes(current.type)
    )
      return false;
    current = current.childForFieldName('declarator') ?? current.namedChild(current.namedChildCount - 1);
  }
  return false;
}

/** The declared name of a C declarator that is not a function (`*x = 1`, `buf[4]`). */
function cVariableName(declarator: Node | null): string | undefined {
  let current = declarator;
  for (let hops = 0; current && hops < 32; hops++) {
    switch (current.type) {
      case 'identifier':
        return current.text;
      case 'init_declarator':
      case 'pointer_declarator':
      case 'array_declarator':
      case 'parenthesized_declarator':
      case 'reference_declarator':
        current = current.childForFieldName('declarator') ?? current.namedChild(0);
        break;
      default:
        return undefined;
    }
  }
  return undefined;
}

function visitC(collector: Collector, node: Node, visit: Visit, wrapper?: Node): void {
  const span = wrapper ?? node;
  if (C_CONTAINERS.has(node.type)) {
    for (const child of children(node)) visitC(collector, child, visit);
    return;
  }
  const specifierKind = C_SPECIFIERS[node.type];
  if (specifierKind) {
    const body = node.childForFieldName('body');
    if (!body) return;
    const name = nameOf(node);
    collector.emit(specifierKind, name, node, visit, { span });
    const members = inner(visit, name);
    if (members && node.type !== 'enum_specifier')
      for (const member of children(body)) visitC(collector, member, members);
    return;
  }
  switch (node.type) {
    case 'template_declaration':
      for (const child of children(node))
        if (child.type !== 'template_parameter_list') visitC(collector, child, visit, wrapper ?? node);
      return;
    case 'linkage_specification': {
      const body = node.childForFieldName('body');
      if (body) visitC(collector, body, visit);
      return;
    }
    case 'namespace_definition': {
      const name = nameOf(node);
      collector.emit('namespace', name, node, visit, { span });
      const body = inner(visit, name, false);
      if (body) visitC(collector, node.childForFieldName('body') ?? node, body);
      return;
    }
    case 'function_definition': {
      const found = cFunctionName(node.childForFieldName('declarator'));
      if (!found) return;
      const container = found.scope
        ? visit.container
          ? `${visit.container}.${found.scope.replace(/::/g, '.')}`
          : found.scope.replace(/::/g, '.')
        : visit.container;
      const kind: SymbolKind = visit.inType || found.scope ? 'method' : 'function';
      collector.emit(kind, found.name, node, { ...visit, container }, { span });
      return;
    }
    case 'type_definition': {
      const names = node
        .childrenForFieldName('declarator')
        .map((declarator) => cVariableName(declarator) ?? textOf(declarator) ?? '');
      const type = node.childForFieldName('type');
      const tagged =
        type && C_SPECIFIERS[type.type] && type.childForFieldName('body') ? nameOf(type) : undefined;
      for (const name of names)
        collector.emit('type', name, node, visit, {
          span,
          sharedWith: [...names.filter((other) => other !== name), ...(tagged ? [tagged] : [])],
        });
      if (tagged && type)
        collector.emit(C_SPECIFIERS[type.type] as SymbolKind, tagged, node, visit, {
          span,
          sharedWith: names,
        });
      return;
    }
    case 'declaration':
    case 'field_declaration': {
      const type = node.childForFieldName('type');
      if (type && C_SPECIFIERS[type.type] && type.childForFieldName('body')) visitC(collector, type, visit);
      const declarators = node.childrenForFieldName('declarator');
      // Prototypes are declarations, not definitions.
      if (declarators.some(isFunctionDeclarator)) return;
      const names = declarators
        .map((declarator) => cVariableName(declarator))
        .filter((name): name is string => !!name);
      for (const name of names)
        collector.emit(node.type === 'field_declaration' ? 'field' : 'variable', name, node, visit, {
          span,
          sharedWith: names.filter((other) => other !== name),
        });
      return;
    }
    case 'preproc_def':
    case 'preproc_function_def':
      collector.emit('macro', nameOf(node), node, visit, { span });
      return;
    default:
      return;
  }
}

/**
 * The definitions of a parsed file, in source order, with the span a deletion would remove
 * (decorators, attributes, export keywords, Go declaration groups of one spec and the doc comment
 * directly above included). `text` must be the text the tree was parsed from.
 */
export function extractSymbols(language: CodeLanguage, root: Node, text: string): SymbolSpan[] {
  const collector = new Collector(text, language);
  const top: Visit = { container: undefined, depth: 0, inType: false };
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript':
      visitScript(collector, root, top);
      break;
    case 'python':
      visitPython(collector, root, top);
      break;
    case 'go':
      visitGo(collector, root, top);
      break;
    case 'rust':
      visitRust(collector, root, top);
      break;
    case 'java':
      visitJava(collector, root, top);
      break;
    case 'c':
    case 'cpp':
      visitC(collector, root, top);
      break;
  }
  const sorted = collector.symbols.sort((left, right) => left.start - right.start || left.end - right.end);
  return mergeOverloads(sorted, text);
}

/**
 * TypeScript overloads: the signatures directly before an implementation of the same name are one
 * definition with it (deleting the function deletes its overloads; it is not ambiguous). Signatures
 * without an implementation (declarations, interfaces) stay definitions of their own.
 */
function mergeOverloads(symbols: SymbolSpan[], text: string): SymbolSpan[] {
  const result: SymbolSpan[] = [];
  for (const symbol of symbols) {
    let merged = symbol;
    while (result.length > 0) {
      const previous = result[result.length - 1] as SymbolSpan;
      const adjacent =
        previous.signature === true &&
        previous.name === merged.name &&
        previous.kind === merged.kind &&
        previous.container === merged.container &&
        previous.end <= merged.start &&
        /^\s*$/.test(text.slice(previous.end, merged.start));
      if (!adjacent) break;
      result.pop();
      const { signature: _signature, ...rest } = merged;
      merged = {
        ...rest,
        start: previous.start,
        startLine: previous.startLine,
        ...(merged.signature ? { signature: true } : {}),
      };
    }
    result.push(merged);
  }
  return result;
}

/** The qualified name of a symbol: `Container.name`, or the name alone. */
export function qualifiedName(symbol: CodeSymbol): string {
  return symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name;
}
