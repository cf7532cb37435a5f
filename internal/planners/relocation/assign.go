package relocation

import (
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
)

// setRow fills row r of a's cost matrix with the distances from square sq
// to each aim box: from[j][sq].
func setRow(a *macro.Assigner, r int, sq uint16, from [][]uint16) {
	row := a.Row(r)
	for j, d := range from {
		if v := d[sq]; v == board.Inf {
			row[j] = macro.Unmatchable
		} else {
			row[j] = int32(v)
		}
	}
}
