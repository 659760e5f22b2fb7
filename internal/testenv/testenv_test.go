package testenv

import (
	"os"
	"regexp"
	"testing"
)

func TestRequired(t *testing.T) {
	tests := []struct {
		env    string
		kind   string
		want   bool
		reason string
	}{
		{"", Data, false, "nothing required by default"},
		{"data", Data, true, "named kind"},
		{"data, onnx", ONNX, true, "comma list with spaces"},
		{"data", Models, false, "other kinds stay optional"},
		{"all", Models, true, "all means every kind"},
		{"all", Chromium, true, "all includes the browser"},
		{"all,-mlflow", MLflow, false, "a minus takes one kind out of all"},
		{"all,-mlflow", Chromium, true, "the minus takes out only its kind"},
		{"-data,data", Data, false, "a minus wins wherever it stands"},
	}
	for _, tt := range tests {
		t.Run(tt.env+"/"+tt.kind, func(t *testing.T) {
			t.Setenv(EnvRequire, tt.env)
			if got := Required(tt.kind); got != tt.want {
				t.Errorf("Required(%q) with %s=%q = %v, want %v (%s)", tt.kind, EnvRequire, tt.env, got, tt.want, tt.reason)
			}
		})
	}
}

// TestMLflowVersionMatchesMakefile: make mlflow installs the release the
// tests look for.
func TestMLflowVersionMatchesMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MLFLOW_VERSION \?= (\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no MLFLOW_VERSION ?= line")
	}
	if string(m[1]) != MLflowVersion {
		t.Errorf("Makefile installs MLflow %s, testenv.MLflowVersion is %s", m[1], MLflowVersion)
	}
}
