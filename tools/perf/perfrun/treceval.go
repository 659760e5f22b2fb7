package main

import (
	"fmt"
	"os"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// The trec_eval peer: trec_eval 10.0 built from its C source
// (testenv.TrecEvalSource: ../shared/trec_eval/src next to the data pack,
// or $RETRIEVALBENCH_TREC_EVAL_SRC) into
// $RETRIEVALBENCH_CACHE/perf/trec_eval/10.0/, twice: with its Makefile's
// own flags (gcc -g, no -O: the binary users get from "make") and with
// -O2 added (what a user who optimises would run). Each build's "-v" line
// must read trec_eval version 10.0.

// ensureTrecEval builds (once per source) both trec_eval binaries.
func (e *env) ensureTrecEval() error {
	src, ok := testenv.TrecEvalSource()
	if !ok {
		return fmt.Errorf("no trec_eval source at %s (trec_eval.c): set %s, or put trec_eval 10.0's src/ next to the data pack ($RETRIEVALBENCH_DATA/../trec_eval/src)", src, testenv.EnvTrecEvalSrc)
	}
	var err error
	if e.trecEval, err = testenv.BuildTrecEval(src, testenv.TrecEvalDefault, os.Stderr); err != nil {
		return err
	}
	if e.trecEvalO2, err = testenv.BuildTrecEval(src, testenv.TrecEvalO2, os.Stderr); err != nil {
		return err
	}
	return nil
}
