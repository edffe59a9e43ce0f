/** Where a PowerShell command uses a pipeline-chain operator. */
export interface PowerShellChainOperator {
  readonly operator: '&&' | '||';
  /** Index in the command text. */
  readonly index: number;
}

const TOKEN_BREAK = new Set([' ', '\t', '\r', '\n', ';', '(', ')', '{', '}', '|', '&', ',']);

/**
 * Finds the first `&&` or `||` that PowerShell would parse as a pipeline-chain operator: outside
 * single- and double-quoted strings, here-strings, line and block comments, and not escaped with a
 * backtick. Windows PowerShell 5.1 rejects these operators with a parse error (they arrived in
 * PowerShell 7), so the `pwsh` tool refuses them up front with guidance instead of failing after a
 * spawn.
 */
export function findPowerShellChainOperator(command: string): PowerShellChainOperator | undefined {
  let index = 0;
  const length = command.length;
  const atTokenStart = (position: number) => position === 0 || TOKEN_BREAK.has(command[position - 1]!);
  while (index < length) {
    const char = command[index]!;
    const next = command[index + 1];
    if (char === '`') {
      index += 2;
      continue;
    }
    if (char === '@' && (next === "'" || next === '"') && /^[ \t]*\r?\n/.test(command.slice(index + 2))) {
      // A here-string runs until its quote and `@` start a line.
      const close = new RegExp(`\\n${next}@`, 'g');
      close.lastIndex = index + 2;
      const end = close.exec(command);
      index = end ? end.index + 3 : length;
      continue;
    }
    if (char === "'") {
      index += 1;
      while (index < length) {
        if (command[index] === "'" && command[index + 1] === "'") index += 2;
        else if (command[index] === "'") break;
        else index += 1;
      }
      index += 1;
      continue;
    }
    if (char === '"') {
      index += 1;
      while (index < length) {
        const inner = command[index];
        if (inner === '`') index += 2;
        else if (inner === '"' && command[index + 1] === '"') index += 2;
        else if (inner === '"') break;
        else index += 1;
      }
      index += 1;
      continue;
    }
    if (char === '<' && next === '#') {
      const end = command.indexOf('#>', index + 2);
      index = end < 0 ? length : end + 2;
      continue;
    }
    if (char === '#' && atTokenStart(index)) {
      const end = command.indexOf('\n', index);
      index = end < 0 ? length : end + 1;
      continue;
    }
    if ((char === '&' && next === '&') || (char === '|' && next === '|')) {
      return { operator: char === '&' ? '&&' : '||', index };
    }
    index += 1;
  }
  return undefined;
}
