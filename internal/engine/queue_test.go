package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOpenQueueEscape checks the order in which pop and popEscape take
// entries: pop the smallest f, the largest g first, the latest pushed
// first among equals; popEscape the next f above both the smallest and
// its last one, and as pop does past the largest.
func TestOpenQueueEscape(t *testing.T) {
	type entry struct{ rec, f, g int }
	pushed := []entry{{1, 3, 0}, {2, 3, 2}, {3, 5, 0}, {4, 9, 1}, {5, 9, 1}, {6, 12, 0}, {7, 3, 2}}
	tests := []struct {
		name string
		ops  string // 'p' pop, 'e' popEscape
		want []entry
	}{
		{"pops", "ppppppp", []entry{{7, 3, 2}, {2, 3, 2}, {1, 3, 0}, {3, 5, 0}, {5, 9, 1}, {4, 9, 1}, {6, 12, 0}}},
		{"escapes", "eeeeeee", []entry{{3, 5, 0}, {5, 9, 1}, {6, 12, 0}, {7, 3, 2}, {4, 9, 1}, {2, 3, 2}, {1, 3, 0}}},
		{"mixed", "peepeee", []entry{{7, 3, 2}, {3, 5, 0}, {5, 9, 1}, {2, 3, 2}, {6, 12, 0}, {1, 3, 0}, {4, 9, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newOpenQueue(newEntryPool(64))
			for _, e := range pushed {
				if !q.push(uint32(e.rec), e.f, e.g) {
					t.Fatal("pool full")
				}
			}
			var got []entry
			for _, op := range tc.ops {
				var (
					rec  uint32
					f, g int
					ok   bool
				)
				if op == 'e' {
					rec, f, g, ok = q.popEscape()
				} else {
					rec, f, g, ok = q.pop()
				}
				if !ok {
					t.Fatalf("queue empty after %d pops", len(got))
				}
				got = append(got, entry{int(rec), f, g})
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(entry{})); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if _, _, _, ok := q.popEscape(); ok {
				t.Error("popEscape took an entry from an empty queue")
			}
		})
	}
}
