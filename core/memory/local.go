package memory

import "github.com/ratewindow/ratewindow/core"

var _ core.LocalStore = (*store)(nil)

// ProcessLocal implements core.LocalStore: the counts live in this
// process's memory, so two processes never share them.
func (*store) ProcessLocal() bool { return true }
