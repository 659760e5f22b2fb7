//go:build !linux || !cgo

package rss

// trimCHeap is a no-op without cgo or outside Linux.
func trimCHeap() {}
