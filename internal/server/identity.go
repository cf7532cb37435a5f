package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// Who calls: a job belongs to the principal that started it, and Cancel
// and Watch of a job are for that principal and the daemon's operators
// only (PERMISSION_DENIED otherwise). On the Unix socket the principal is
// the peer's uid, which the kernel vouches for (SO_PEERCRED); root and the
// daemon's own user are operators. On loopback TCP, which every local user
// can reach, a gRPC call must carry the token the daemon writes to a file
// only its user can read (TokenFile), and is then an operator; an HTTP
// request may carry the token too, or is a browser session, named by a
// cookie the daemon sets, so that a job started from a web page is that
// page's.

// principal names who made a call.
type principal struct {
	// name is "uid N", "token" or "session ID"; "" for nobody known.
	name string
	// operator may cancel and watch every job.
	operator bool
}

type principalKey struct{}

// withPrincipal returns ctx carrying p.
func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principalOf returns the caller of ctx's call.
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// mayControl reports whether p may cancel or watch a job owner started.
func (p principal) mayControl(owner principal) bool {
	return p.operator || p.name != "" && p.name == owner.name
}

// TokenHeader is the gRPC metadata key, and the HTTP header, that carries
// the daemon's token: "Bearer TOKEN".
const TokenHeader = "authorization"

// NewToken returns a fresh random token.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// TokenFileName is the token file's name in the socket's directory, where
// it is by default.
const TokenFileName = "sokod.token"

// WriteTokenFile writes token to path, readable by the daemon's user only,
// replacing any file there. The file's directory must be as safe as the
// socket's (checkListenDir): whoever could write there could put a token
// of their own in its place.
func WriteTokenFile(path, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	if err := checkListenDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	_ = os.Remove(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	_, err = f.WriteString(token + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("token file %s: %w", path, err)
	}
	return nil
}

// ReadTokenFile reads the token a daemon wrote to path.
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// bearer returns the token of an "authorization: Bearer TOKEN" value.
func bearer(v string) string {
	if t, ok := strings.CutPrefix(v, "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

// tokenMatches compares a presented token with the daemon's in constant
// time; no token configured matches nothing.
func (s *Server) tokenMatches(got string) bool {
	return s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

// errNeedToken is a TCP call without the daemon's token.
var errNeedToken = errors.New("this listener needs the daemon's token (the file listen.token_file); " +
	"sokod solve --remote and status send it when they can read the file")

// grpcPrincipal identifies the caller of a gRPC call: by uid on the Unix
// socket (peerCreds), by the token on TCP, which must be present there.
func (s *Server) grpcPrincipal(ctx context.Context) (principal, error) {
	pr, _ := peer.FromContext(ctx)
	if pr != nil {
		if info, ok := pr.AuthInfo.(peerInfo); ok && info.unix {
			if !info.known {
				// No peer credentials on this system: whoever could
				// open the socket, which its mode restricts.
				return principal{name: "unix", operator: true}, nil
			}
			return principal{name: fmt.Sprintf("uid %d", info.uid), operator: info.uid == 0 || info.uid == os.Geteuid()}, nil
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(TokenHeader) {
		if s.tokenMatches(bearer(v)) {
			return principal{name: "token", operator: true}, nil
		}
	}
	return principal{}, rpcError(codes.Unauthenticated, reasonNeedToken, nil, errNeedToken.Error())
}

// sessionCookie names an HTTP client's session.
const sessionCookie = "sokod_session"

// httpPrincipal identifies an HTTP request's caller: the token, else its
// session cookie, else a new session, whose cookie the response sets.
func (s *Server) httpPrincipal(w http.ResponseWriter, r *http.Request) principal {
	if s.tokenMatches(bearer(r.Header.Get(TokenHeader))) {
		return principal{name: "token", operator: true}
	}
	if c, err := r.Cookie(sessionCookie); err == nil && len(c.Value) == 32 {
		if _, err := hex.DecodeString(c.Value); err == nil {
			return principal{name: "session " + c.Value}
		}
	}
	id := NewToken()[:32]
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return principal{name: "session " + id}
}

// withHTTPPrincipal puts each request's caller in its context.
func (s *Server) withHTTPPrincipal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), s.httpPrincipal(w, r))))
	})
}

// peerInfo is what the daemon knows of a connection's peer: on a Unix
// socket its uid, when the system says (peercred_linux.go).
type peerInfo struct {
	credentials.CommonAuthInfo
	unix, known bool
	uid         int
}

// AuthType names the credentials for gRPC.
func (peerInfo) AuthType() string { return "sokod-peer" }

// peerCreds are server transport credentials that add no security on the
// wire (clients dial with insecure credentials, as before) but record each
// connection's peer: the uid of a Unix socket's peer.
type peerCreds struct{}

func (peerCreds) ServerHandshake(c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	info := peerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}
	if uc, ok := c.(*net.UnixConn); ok {
		info.unix = true
		info.uid, info.known = peerUID(uc)
	}
	return c, info, nil
}

func (peerCreds) ClientHandshake(context.Context, string, net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("peerCreds are server credentials")
}

func (peerCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
}

func (p peerCreds) Clone() credentials.TransportCredentials { return p }

func (peerCreds) OverrideServerName(string) error { return nil }

// newJobID returns an id no client can guess: 128 random bits.
func newJobID() string {
	return NewToken()[:32]
}

// unaryIdentity puts the caller of each unary call in its context, and
// refuses a TCP call without the token. The health service answers
// anyone, as readiness probes need.
func (s *Server) unaryIdentity(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	p, err := s.grpcPrincipal(ctx)
	if err != nil && !strings.HasPrefix(info.FullMethod, healthPrefix) {
		s.logCall(ctx, info.FullMethod, time.Now(), err)
		return nil, err
	}
	return handler(withPrincipal(ctx, p), req)
}

// streamIdentity is unaryIdentity for streams.
func (s *Server) streamIdentity(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	p, err := s.grpcPrincipal(ss.Context())
	if err != nil && !strings.HasPrefix(info.FullMethod, healthPrefix) {
		s.logCall(ss.Context(), info.FullMethod, time.Now(), err)
		return err
	}
	return handler(srv, contextStream{ss, withPrincipal(ss.Context(), p)})
}

// healthPrefix starts the health service's method names.
const healthPrefix = "/grpc.health.v1.Health/"

// contextStream is a server stream with another context.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c contextStream) Context() context.Context { return c.ctx }

// TokenCredentials are a client's per-call credentials that carry the
// daemon's token, for gRPC over loopback TCP without TLS.
type TokenCredentials string

// GetRequestMetadata returns the token's header.
func (t TokenCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{TokenHeader: "Bearer " + string(t)}, nil
}

// RequireTransportSecurity is false: the token travels on loopback only.
func (TokenCredentials) RequireTransportSecurity() bool { return false }
