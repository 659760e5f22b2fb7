//go:build linux && cgo

package rss

/*
#include <stddef.h>
// Weak, so that the package links against C libraries without
// malloc_trim (musl): the call is then skipped.
extern int malloc_trim(size_t pad) __attribute__((weak));
static int rss_trim(void) { return malloc_trim ? malloc_trim(0) : -1; }
*/
import "C"

// trimCHeap returns the C heap's free memory to the kernel (glibc's
// malloc_trim, all arenas), as debug.FreeOSMemory does for the Go heap.
// Memory freed by C libraries (ONNX Runtime, SQLite) otherwise stays
// resident in malloc's arenas, by an amount that depends on which threads
// freed what, and moves the baseline a peak is measured from.
func trimCHeap() { C.rss_trim() }
