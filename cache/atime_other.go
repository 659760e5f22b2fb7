//go:build !linux && !darwin

package cache

import (
	"io/fs"
	"time"
)

// accessTime falls back to the modification time where the platform's
// access time is not read.
func accessTime(info fs.FileInfo) time.Time { return info.ModTime() }
