/**
 * Finds where JSON text stops being valid, for error messages that name a
 * line and column (Node 20's JSON.parse errors do not always give one).
 * Returns the offset of the first offending character, or −1 if the text
 * is valid JSON. Iterative (an explicit stack of open containers), so
 * nesting of any depth is scanned without overflowing the call stack.
 */
export function jsonErrorOffset(text: string): number {
  const n = text.length;
  let i = 0;
  // open containers: '{' or '['
  const stack: number[] = [];
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      i++;
    }
  };
  /** Scans a string starting at its opening quote; false when it is malformed. */
  const string = (): boolean => {
    i++;
    while (i < n && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) return false;
      i++;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const number = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  for (;;) {
    // expect a value
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 1 : 2);
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else if (c === '{') {
        if (!key()) return i;
        continue;
      } else continue;
    } else if (c === '"') {
      if (!string()) return i;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      number.lastIndex = i;
      if (!number.exec(text)) return i;
      i = number.lastIndex;
    } else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else return i;
    // after a value: close containers or go on to the next element
    for (;;) {
      ws();
      if (stack.length === 0) return i < n ? i : -1;
      const top = stack[stack.length - 1];
      if (text[i] === ',') {
        i++;
        if (top === 1 && !key()) return i;
        break;
      }
      if (text[i] === (top === 1 ? '}' : ']')) {
        stack.pop();
        i++;
        continue;
      }
      return i;
    }
  }

  /** Scans `"key" :` of an object member; false when malformed (i at the problem). */
  function key(): boolean {
    ws();
    if (text[i] !== '"' || !string()) return false;
    ws();
    if (text[i] !== ':') return false;
    i++;
    return true;
  }
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    start = k + 1;
  }
  return { line, column: offset - start + 1 };
}
