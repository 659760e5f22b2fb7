package context7api

import "strings"

// Entry names one library of a catalog and the doc ids that belong to it:
// those equal to Prefix or starting with Prefix + ".".
type Entry struct {
	Library
	Prefix string
}

// DS1000Catalog is the catalog of the libraries DS-1000 asks about, with
// Context7-style ids and the names its tasks use (datasets.Meta.Library:
// "Pandas", "Numpy", "Matplotlib", "Sklearn", "Scipy", "Pytorch",
// "Tensorflow") as aliases. The doc-id prefixes are those of the
// docprompting-conala entries the coderag loader reads.
func DS1000Catalog() []Entry {
	return []Entry{
		{Library{ID: "/pandas-dev/pandas", Title: "pandas", Description: "Data structures and analysis tools for Python"}, "pandas"},
		{Library{ID: "/numpy/numpy", Title: "NumPy", Description: "The fundamental package for scientific computing with Python"}, "numpy"},
		{Library{ID: "/matplotlib/matplotlib", Title: "Matplotlib", Description: "Plotting with Python"}, "matplotlib"},
		{Library{ID: "/scikit-learn/scikit-learn", Title: "scikit-learn", Aliases: []string{"sklearn"}, Description: "Machine learning in Python"}, "sklearn"},
		{Library{ID: "/scipy/scipy", Title: "SciPy", Description: "Scientific computing algorithms for Python"}, "scipy"},
		{Library{ID: "/pytorch/pytorch", Title: "PyTorch", Aliases: []string{"torch"}, Description: "Tensors and neural networks in Python"}, "torch"},
		{Library{ID: "/tensorflow/tensorflow", Title: "TensorFlow", Aliases: []string{"tf"}, Description: "An open source machine learning framework"}, "tensorflow"},
	}
}

// Group gives each catalog entry the docs whose id has its prefix and
// returns the libraries that got at least one (New rejects empty ones), in
// catalog order, and the docs no entry claimed, in input order.
func Group(catalog []Entry, docs []Doc) (libs []Library, unclaimed []Doc) {
	byPrefix := map[string]int{}
	for i, e := range catalog {
		byPrefix[e.Prefix] = i
	}
	got := make([][]Doc, len(catalog))
	for _, d := range docs {
		head, _, _ := strings.Cut(d.ID, ".")
		i, ok := byPrefix[head]
		if !ok {
			unclaimed = append(unclaimed, d)
			continue
		}
		got[i] = append(got[i], d)
	}
	for i, e := range catalog {
		if len(got[i]) > 0 {
			l := e.Library
			l.Docs = append(l.Docs[:len(l.Docs):len(l.Docs)], got[i]...)
			libs = append(libs, l)
		}
	}
	return libs, unclaimed
}
