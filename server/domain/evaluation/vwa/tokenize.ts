/**
 * Word tokenisation for VisualWebArena's `must_include` / `must_exclude` checks.
 *
 * VWA tokenises with NLTK's `word_tokenize` to decide whether a reference is a single word, and if it is, requires
 * it to appear as a whole token of the answer (so "0" does not match inside "10"). This is an independent
 * approximation of that behaviour: Penn-Treebank-style splitting of punctuation, quotes and clitics, and
 * sentence-final full stops split off. NLTK's Punkt sentence splitter is approximated by treating a full stop
 * followed by white space as a sentence end unless the word looks like an abbreviation or an initial.
 */

const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "inc", "ltd", "co", "corp", "no", "fig", "approx", "dept"]);

/** Splits text into "sentences" at full stops / ? / ! that end a word and are followed by white space. */
function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /(\S+?)([.!?]+)(?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const word = m[1]!.replace(/^[("'`[{<]+/, "");
    const punct = m[2]!;
    const end = m.index + m[0].length;
    const isAbbrev = punct === "." && (/^([a-z]\.)+[a-z]$/i.test(word) || /^[a-z]$/i.test(word) || ABBREVIATIONS.has(word.toLowerCase()));
    if (!isAbbrev) {
      out.push(text.slice(start, end));
      start = end;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out.filter((s) => s.trim() !== "");
}

/** Treebank-style splitting of one sentence. */
function treebank(sentence: string): string[] {
  let s = ` ${sentence} `;
  s = s.replace(/([«“‘„]|`+)/g, " $1 ");
  // Opening double quotes become `` tokens.
  s = s.replace(/^(\s*)"/, "$1 `` ");
  s = s.replace(/([ ([{<])("|'')/g, "$1 `` ");
  // An opening single quote before a one-letter word ('a', 'i') that is not a clitic.
  s = s.replace(/(')(?!re|ve|ll|m|t|s|d|n)(\w)\b/gi, "$1 $2");
  // Colons and commas split off unless inside a number (10:30, 1,000).
  s = s.replace(/([:,])([^\d])/g, " $1 $2");
  s = s.replace(/([:,])\s*$/g, " $1 ");
  s = s.replace(/\.\.\./g, " ... ");
  s = s.replace(/[;@#$%&]/g, " $& ");
  // The sentence-final full stop (possibly followed by closing brackets or quotes).
  s = s.replace(/([^.])(\.)([\])}>"']*)\s*$/, "$1 $2 $3 ");
  s = s.replace(/[?!]/g, " $& ");
  s = s.replace(/([^'])' /g, "$1 ' ");
  s = s.replace(/[\][(){}<>]/g, " $& ");
  s = s.replace(/--/g, " -- ");
  // Closing double quotes and clitics.
  s = s.replace(/([»”’])/g, " $1 ");
  s = s.replace(/''/g, " '' ");
  s = s.replace(/"/g, " '' ");
  s = s.replace(/([^' ])('[sSmMdD]|') /g, "$1 $2 ");
  s = s.replace(/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g, "$1 $2 ");
  s = s.replace(/\b(can)(not)\b/gi, " $1 $2 ");
  s = s.replace(/\b(gon|wan)(na)\b/gi, " $1 $2 ");
  s = s.replace(/\b(got)(ta)\b/gi, " $1 $2 ");
  s = s.replace(/\b(gim|lem)(me)\b/gi, " $1 $2 ");
  return s.split(/\s+/).filter((t) => t !== "");
}

export function wordTokenize(text: string): string[] {
  const out: string[] = [];
  for (const sentence of splitSentences(text)) out.push(...treebank(sentence));
  return out;
}
