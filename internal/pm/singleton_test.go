package pm

import "testing"

// A program started without a launcher is a universe of one: application 0, no
// parent, and nothing to spawn with or publish names in.
func TestSingletonJobInfo(t *testing.T) {
	c := Singleton()
	ji, ok := c.(JobInfo)
	if !ok {
		t.Fatal("the singleton does not say its job's facts (pm.JobInfo)")
	}
	if n, ok := ji.UniverseSize(); !ok || n != 1 {
		t.Errorf("UniverseSize() = %d, %v; want 1, true", n, ok)
	}
	if n, ok := ji.AppNum(); !ok || n != 0 {
		t.Errorf("AppNum() = %d, %v; want 0, true", n, ok)
	}
	if p := ji.ParentPort(); p != "" {
		t.Errorf("ParentPort() = %q; want none", p)
	}
	if _, ok := c.(Spawner); ok {
		t.Error("the singleton claims to spawn")
	}
	if _, ok := c.(NameService); ok {
		t.Error("the singleton claims a name service")
	}
}
