package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// httpGuard is what the local HTTP servers ('mcp --http', 'report --serve') check of a request before their
// handler sees it:
//   - Host: on a loopback address, only the names the server is reached by on this machine (localhost and the
//     loopback addresses), so a web page whose own name resolves to 127.0.0.1 (DNS rebinding) gets 403;
//   - Origin (when origins is set): a browser's request from a page not on the list gets 403; a request without
//     an Origin (a program, not a browser) passes;
//   - token (when set): the request must carry "Authorization: Bearer <token>", else 401.
type httpGuard struct {
	hosts   map[string]bool // the Host names answered (nil: any, as --allow-remote or a unix socket asks)
	origins map[string]bool // the Origin values let through (nil: Origin is not checked)
	token   string          // the bearer token required ("": none)
	next    http.Handler
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.hosts != nil && !g.hosts[hostName(r.Host)] {
		http.Error(w, "this server answers requests for localhost only (the Host header names another host)", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); g.origins != nil && origin != "" && !g.origins[strings.ToLower(origin)] {
		http.Error(w, "requests from web pages are refused (Origin "+origin+" is not allowed)", http.StatusForbidden)
		return
	}
	if g.token != "" {
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(g.token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="transitbench"`)
			http.Error(w, "give the server's token: Authorization: Bearer <token> (printed at start, and in the token file)", http.StatusUnauthorized)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// hostName returns the lower-case host of a Host header (without its port and brackets).
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// loopbackHosts returns the Host names a server listening on the TCP address addr answers when it listens on
// loopback: localhost, 127.0.0.1, ::1 and the bound address; nil (any host) when it listens elsewhere (which
// --allow-remote allowed).
func loopbackHosts(addr net.Addr) map[string]bool {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return nil
	}
	return map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, strings.ToLower(tcp.IP.String()): true}
}

// sameOrigins returns the origins of pages served from the server itself on the port of addr (by the names
// hosts lists) with the extra origins given (--allow-origin), lower-cased.
func sameOrigins(addr net.Addr, hosts map[string]bool, extra []string) map[string]bool {
	out := map[string]bool{}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		for h := range hosts {
			if strings.Contains(h, ":") {
				h = "[" + h + "]"
			}
			out[fmt.Sprintf("http://%s:%d", h, tcp.Port)] = true
		}
	}
	for _, o := range extra {
		out[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	return out
}

// mcpTokenFile is the file, in the data directory, that holds the token of 'mcp --http' while it serves.
const mcpTokenFile = "mcp-token"

// newToken writes a fresh random token (32 bytes, hex) to dir/mcp-token, readable by its owner only (0600,
// written beside and renamed over the last one), and returns the token and the file's path.
func newToken(dir string) (token, path string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token = hex.EncodeToString(b[:])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, mcpTokenFile)
	f, err := os.CreateTemp(dir, mcpTokenFile+".*")
	if err != nil {
		return "", "", err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", "", err
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return "", "", err
	}
	return token, path, nil
}
