package benchtest

import (
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
)

// The names below moved out of benchtest on 2026-12-03 (the dataset
// catalogue became package datasets/catalogue; capabilities moved to
// package systems). They stay here, deprecated, for one release so that a
// module written against the earlier API still compiles; CHANGELOG.md
// says what moved and how to update.

// Dataset is one dataset of a family.
//
// Deprecated: use catalogue.Dataset (its LoadSmall field is now
// LoadSmallCorpora, a catalogue.Loader).
type Dataset = catalogue.Dataset

// Family is a named group of datasets.
//
// Deprecated: use catalogue.Family (SmallSystems is gone: every config runs
// at -size=small under the Heavy/FixturesOnly/MaxDocs rules).
type Family = catalogue.Family

// ChildPeaker is implemented by systems that run their own processes.
//
// Deprecated: use systems.PeakRSSReporter.
type ChildPeaker = systems.PeakRSSReporter

// Families returns every benchmark family.
//
// Deprecated: use catalogue.Families.
func Families() []Family { return catalogue.Families() }

// RepoQA is the RepoQA family.
//
// Deprecated: use catalogue.RepoQA.
func RepoQA() Family { return catalogue.RepoQA() }

// RepoQALangs is the RepoQA languages family.
//
// Deprecated: use catalogue.RepoQALangs.
func RepoQALangs() Family { return catalogue.RepoQALangs() }

// SWEQA is the SWE-QA family.
//
// Deprecated: use catalogue.SWEQA.
func SWEQA() Family { return catalogue.SWEQA() }

// CodeRAG is the CodeRAG-Bench family.
//
// Deprecated: use catalogue.CodeRAG.
func CodeRAG() Family { return catalogue.CodeRAG() }

// CoSQA is the CoSQA family.
//
// Deprecated: use catalogue.CoSQA.
func CoSQA() Family { return catalogue.CoSQA() }

// TREC is the TREC fixture family.
//
// Deprecated: use catalogue.TREC.
func TREC() Family { return catalogue.TREC() }

// BEIR is the BEIR family.
//
// Deprecated: use catalogue.BEIR.
func BEIR() Family { return catalogue.BEIR() }

// Cases is the case-file family.
//
// Deprecated: use catalogue.Cases.
func Cases() Family { return catalogue.Cases() }

// FixturesDir is the directory of the fixtures shipped with retrievalbench.
//
// Deprecated: use catalogue.FixturesDir.
func FixturesDir() string { return catalogue.FixturesDir() }
