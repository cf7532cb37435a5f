package server

import (
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// requestCodec is the gRPC server's protobuf codec. It reads a request
// whose strings are not UTF-8, which protobuf refuses and gRPC then
// reports as the daemon's INTERNAL error, by reading those strings as
// Windows-1252 (of which Latin-1 is part), as sokod reads level files: a
// level with a Latin-1 title is solved over the API as it is locally.
type requestCodec struct{}

// Name is the content subtype gRPC clients send.
func (requestCodec) Name() string { return "proto" }

// Marshal encodes an answer.
func (requestCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("codec: %T is not a protobuf message", v)
	}
	return proto.Marshal(m)
}

// Unmarshal decodes a request, repairing strings that are not UTF-8.
func (requestCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("codec: %T is not a protobuf message", v)
	}
	err := proto.Unmarshal(b, m)
	if err == nil {
		return nil
	}
	fixed, ok := repairStrings(b, m.ProtoReflect().Descriptor(), 0)
	if !ok || proto.Unmarshal(fixed, m) != nil {
		return err
	}
	return nil
}

// repairStrings returns the encoded message b of type md with every string
// field, at any depth, made UTF-8; ok is false when b does not parse.
func repairStrings(b []byte, md protoreflect.MessageDescriptor, depth int) ([]byte, bool) {
	if depth > 32 {
		return nil, false
	}
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		size := protowire.ConsumeFieldValue(num, typ, b[n:])
		if size < 0 {
			return nil, false
		}
		field, value := b[:n+size], b[n:n+size]
		b = b[n+size:]
		fd := md.Fields().ByNumber(num)
		if fd == nil || typ != protowire.BytesType || fd.IsMap() {
			out = append(out, field...)
			continue
		}
		v, _ := protowire.ConsumeBytes(value)
		switch fd.Kind() {
		case protoreflect.StringKind:
			if !utf8.Valid(v) {
				dec, err := charmap.Windows1252.NewDecoder().Bytes(v)
				if err != nil {
					return nil, false
				}
				v = dec
			}
		case protoreflect.MessageKind:
			var ok bool
			if v, ok = repairStrings(v, fd.Message(), depth+1); !ok {
				return nil, false
			}
		default:
			out = append(out, field...)
			continue
		}
		out = protowire.AppendTag(out, num, typ)
		out = protowire.AppendBytes(out, v)
	}
	return out, true
}
