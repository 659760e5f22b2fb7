package embed

// CountTruncated returns how many of prefix+texts have more tokens than the
// model's max tokens, so that Embed would cut them: the same tokenization
// as Embed, without running the model. A caller whose vectors came from a
// store (no Embed call, so no Counts.Truncated) counts them with it.
func (e *Embedder) CountTruncated(texts []string, prefix string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, enc := range e.tokenize(texts, prefix) {
		if enc.Truncated {
			n++
		}
	}
	return n
}
