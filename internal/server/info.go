package server

import (
	"context"
	"runtime"
	"strings"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// GetServerInfo says what an About box shows.
func (v *service) GetServerInfo(ctx context.Context, _ *sokodv1.GetServerInfoRequest) (*sokodv1.GetServerInfoResponse, error) {
	s := v.s
	comps, err := v.ListComponents(ctx, &sokodv1.ListComponentsRequest{})
	if err != nil {
		return nil, err
	}
	resp := &sokodv1.GetServerInfoResponse{
		Name: "sokod", Version: s.opts.Version, GoVersion: runtime.Version(), Os: runtime.GOOS, Arch: runtime.GOARCH,
		Started: timestamppb.New(s.started), Components: comps.Components, DefaultPlanners: s.opts.Planners,
		Limits: &sokodv1.ServerLimits{
			TimeLimit: durationpb.New(s.opts.Limits.Time), MemoryLimitBytes: uint64(s.opts.Limits.Memory), NodeLimit: uint64(s.opts.Limits.Nodes),
			MaxJobs: int32(s.opts.MaxJobs), QueueCapacity: int32(s.opts.Queue), MemoryCapBytes: uint64(s.opts.MemoryCap),
			MaxWidth: sokoban.MaxWidth, MaxHeight: sokoban.MaxHeight, MaxRequestBytes: int64(s.opts.MaxRequestBytes),
		},
	}
	if h, err := s.opts.Components.Heuristic(ctx, ""); err == nil {
		resp.DefaultHeuristic = h.Name
	}
	return resp, nil
}

// ParseLevels reads the levels of a text for a client that draws them.
func (v *service) ParseLevels(_ context.Context, req *sokodv1.ParseLevelsRequest) (*sokodv1.ParseLevelsResponse, error) {
	c, err := sokoban.ParseCollection(req.GetText())
	if err != nil {
		return &sokodv1.ParseLevelsResponse{LevelError: levelError(err)}, nil
	}
	resp := &sokodv1.ParseLevelsResponse{}
	for i, l := range c.Levels {
		sum := &sokodv1.LevelSummary{Number: int32(i + 1), Title: l.Title, Width: int32(l.Width()), Height: int32(l.Height()),
			Boxes: int32(l.Boxes()), Solved: l.Solved()}
		for _, row := range strings.Split(strings.TrimSuffix(l.XSB(), "\n"), "\n") {
			sum.Rows = append(sum.Rows, row+strings.Repeat(" ", l.Width()-len(row)))
		}
		resp.Levels = append(resp.Levels, sum)
	}
	return resp, nil
}
