package cloudinit

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Header is the first line of every document this package accepts.
const Header = "#cloud-config"

// MaxFileSize bounds the decoded (and decompressed) content of one file, so that a small gzip
// bomb cannot exhaust the controller's memory.
const MaxFileSize = 64 << 20

// DefaultPermissions and DefaultOwner are cloud-init's defaults for write_files.
const (
	DefaultPermissions fs.FileMode = 0o644
	DefaultOwner                   = "root:root"
)

// Action is one step to execute in the container: a *WriteFile or a *RunCommand.
type Action interface {
	// SourceLine is the line of the document the action comes from, for logs and errors.
	SourceLine() int
}

// WriteFile writes Content to Path, creating missing parent directories, then sets Permissions
// and Owner.
type WriteFile struct {
	// Path is absolute and clean.
	Path string
	// Content is decoded: what the file must hold (or what to append).
	Content []byte
	// Permissions are the file's mode bits (permission, setuid, setgid, sticky).
	Permissions fs.FileMode
	// Owner is "user" or "user:group".
	Owner string
	// Append adds Content to the end of the file instead of replacing it.
	Append bool
	// Line is the line of the entry in the document.
	Line int
}

// SourceLine implements Action.
func (w *WriteFile) SourceLine() int { return w.Line }

// RunCommand runs Args without a shell. The string form of a runcmd or bootcmd entry becomes
// ["/bin/sh", "-c", <string>], as cloud-init runs it.
type RunCommand struct {
	Args []string
	// Boot marks a bootcmd entry: it runs before the files are written, as in cloud-init.
	Boot bool
	// Line is the line of the entry in the document.
	Line int
}

// SourceLine implements Action.
func (r *RunCommand) SourceLine() int { return r.Line }

// Ignored is a key the parser skipped.
type Ignored struct {
	// Key is the module name ("ntp") or the path of an entry key ("write_files[2].defer").
	Key string
	// Line is where the key is.
	Line int
	// Reason says why, when the module means something the provider chose not to do.
	Reason string
}

// Result is a parsed document.
type Result struct {
	// Actions are in cloud-init's order: the bootcmd commands, the file writes (write_files,
	// then the users' sudo rules), the users' commands, then the runcmd commands.
	Actions []Action
	// Ignored are the keys that have no effect in a container, in document order.
	Ignored []Ignored
}

// Error is a parse error at a line of the document.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("cloud-config line %d: %s", e.Line, e.Msg) }

func errorAt(n *yaml.Node, format string, args ...any) error {
	return &Error{Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// Parse parses a "#cloud-config" document. A document that starts with JinjaHeader, then
// Header, is rendered for inst first (see renderJinja); any other document is read as it is,
// so a literal "{{" in it stays.
func Parse(data []byte, inst InstanceData) (*Result, error) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	switch firstLine := strings.TrimRight(string(first), " \t\r"); {
	case firstLine == Header:
	case jinjaHeader.MatchString(firstLine):
		if second, _, _ := bytes.Cut(rest, []byte("\n")); strings.TrimRight(string(second), " \t\r") != Header {
			return nil, &Error{Line: min(2, bytes.Count(data, []byte("\n"))+1), Msg: fmt.Sprintf(
				"the line after %q is not %q: only cloud-config is supported", JinjaHeader, Header)}
		}
		rendered, err := renderJinja(data, inst)
		if err != nil {
			return nil, err
		}
		data = rendered
	default:
		return nil, &Error{Line: 1, Msg: fmt.Sprintf("the bootstrap data does not start with %q (or %q then %q): only cloud-config is supported when the bootstrap data Secret's format is cloud-config or unset", Header, JinjaHeader, Header)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(err)
	}
	res := &Result{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return res, nil // a header and nothing else: nothing to do
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return res, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, errorAt(root, "the document must be a mapping of cloud-init modules, found %s", kindName(root))
	}
	var boot, files, userFiles, users, commands []Action
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if prev, dup := seen[key.Value]; dup {
			return nil, errorAt(key, "module %q appears twice (first on line %d)", key.Value, prev)
		}
		seen[key.Value] = key.Line
		switch key.Value {
		case "write_files":
			f, ignored, err := parseWriteFiles(value)
			if err != nil {
				return nil, err
			}
			files = append(files, f...)
			res.Ignored = append(res.Ignored, ignored...)
		case "runcmd":
			c, err := parseCommands(value, "runcmd", false)
			if err != nil {
				return nil, err
			}
			commands = append(commands, c...)
		case "bootcmd":
			c, err := parseCommands(value, "bootcmd", true)
			if err != nil {
				return nil, err
			}
			boot = append(boot, c...)
		case "users":
			c, f, ignored, err := parseUsers(value)
			if err != nil {
				return nil, err
			}
			users, userFiles = append(users, c...), append(userFiles, f...)
			res.Ignored = append(res.Ignored, ignored...)
		case "disk_setup", "fs_setup", "mounts":
			res.Ignored = append(res.Ignored, Ignored{Key: key.Value, Line: key.Line, Reason: whyDisksAreSkipped})
		default:
			res.Ignored = append(res.Ignored, Ignored{Key: key.Value, Line: key.Line})
		}
	}
	res.Actions = slices.Concat(boot, files, userFiles, users, commands)
	return res, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlError turns the YAML decoder's error into an Error carrying its line.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Line: line, Msg: "invalid YAML: " + msg}
	}
	return &Error{Line: 1, Msg: "invalid YAML: " + msg}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "an unknown node"
}

// resolve follows an alias (anchors are legal YAML, though no renderer writes them).
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < 8; depth++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func parseWriteFiles(n *yaml.Node) ([]Action, []Ignored, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, nil, errorAt(n, "write_files must be a list of files, found %s", kindName(n))
	}
	var files []Action
	var ignored []Ignored
	for i, entry := range n.Content {
		f, ign, err := parseFile(resolve(entry), i)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		ignored = append(ignored, ign...)
	}
	return files, ignored, nil
}

func parseFile(n *yaml.Node, index int) (*WriteFile, []Ignored, error) {
	where := fmt.Sprintf("write_files[%d]", index)
	if n.Kind != yaml.MappingNode {
		return nil, nil, errorAt(n, "%s must be a mapping with path and content, found %s", where, kindName(n))
	}
	f := &WriteFile{Permissions: DefaultPermissions, Owner: DefaultOwner, Line: n.Line}
	var ignored []Ignored
	var content, encoding *yaml.Node
	var pathNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolve(n.Content[i+1])
		if key.Value == "source" {
			return nil, nil, errorAt(key, "%s.source: fetching file content from a URI is not supported in a node container; put the content inline", where)
		}
		if value.Kind != yaml.ScalarNode {
			return nil, nil, errorAt(value, "%s.%s must be a single value, found %s", where, key.Value, kindName(value))
		}
		switch key.Value {
		case "path":
			pathNode = value
		case "content":
			content = value
		case "encoding":
			encoding = value
		case "owner":
			if !isNull(value) {
				if !validOwner.MatchString(value.Value) {
					return nil, nil, errorAt(value, "%s.owner %q is not \"user\" or \"user:group\"", where, value.Value)
				}
				f.Owner = value.Value
			}
		case "permissions":
			if !isNull(value) {
				mode, err := parsePermissions(value.Value)
				if err != nil {
					return nil, nil, errorAt(value, "%s.permissions: %v", where, err)
				}
				f.Permissions = mode
			}
		case "append":
			if !isNull(value) {
				b, err := parseBool(value.Value)
				if err != nil {
					return nil, nil, errorAt(value, "%s.append: %v", where, err)
				}
				f.Append = b
			}
		default:
			ignored = append(ignored, Ignored{Key: where + "." + key.Value, Line: key.Line})
		}
	}
	if pathNode == nil || isNull(pathNode) || pathNode.Value == "" {
		return nil, nil, errorAt(n, "%s has no path", where)
	}
	p := pathNode.Value
	if !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || path.Clean(p) == "/" {
		return nil, nil, errorAt(pathNode, "%s.path %q must be an absolute file path", where, p)
	}
	f.Path = path.Clean(p)
	if content != nil && !isNull(content) {
		enc := ""
		if encoding != nil && !isNull(encoding) {
			enc = encoding.Value
		}
		decoded, err := decode(content.Value, enc)
		if err != nil {
			at := content
			if errors.Is(err, errUnknownEncoding) {
				at = encoding
			}
			return nil, nil, errorAt(at, "%s (%s): %v", where, f.Path, err)
		}
		f.Content = decoded
	} else if encoding != nil && !isNull(encoding) {
		if _, err := decode("", encoding.Value); err != nil && errors.Is(err, errUnknownEncoding) {
			return nil, nil, errorAt(encoding, "%s (%s): %v", where, f.Path, err)
		}
	}
	return f, ignored, nil
}

// validOwner accepts "user" and "user:group", names or numeric IDs.
var validOwner = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})?$`)

// parsePermissions reads an octal mode as cloud-init does: "0644", "644" or "0o644".
func parsePermissions(s string) (fs.FileMode, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0o"), "0O")
	if digits == "" {
		return 0, fmt.Errorf("%q is not an octal mode such as \"0644\"", s)
	}
	v, err := strconv.ParseUint(digits, 8, 32)
	if err != nil || v > 0o7777 {
		return 0, fmt.Errorf("%q is not an octal mode such as \"0644\"", s)
	}
	mode := fs.FileMode(v & 0o777)
	if v&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if v&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if v&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

var errUnknownEncoding = errors.New("unknown encoding")

// decode returns the bytes content stands for under encoding, with cloud-init's names.
func decode(content, encoding string) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "text/plain":
		return []byte(content), nil
	case "b64", "base64":
		return decodeBase64(content)
	case "gz", "gzip":
		return Gunzip([]byte(content))
	case "gz+b64", "gz+base64", "gzip+b64", "gzip+base64":
		raw, err := decodeBase64(content)
		if err != nil {
			return nil, err
		}
		out, err := Gunzip(raw)
		if err != nil {
			return nil, fmt.Errorf("after base64 decoding: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w %q: want base64 (b64), gzip (gz) or gzip+base64 (gz+b64)", errUnknownEncoding, encoding)
}

// decodeBase64 decodes standard base64, ignoring line breaks and spaces as cloud-init (Python's
// b64decode) does.
func decodeBase64(content string) ([]byte, error) {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', ' ', '\t':
			return -1
		}
		return r
	}, content)
	out, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return nil, fmt.Errorf("content is not valid base64: %w", err)
	}
	return out, nil
}

// Gunzip decompresses gzip data bounded by MaxFileSize. internal/ignition uses it for its
// compressed file contents.
func Gunzip(raw []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("content is not gzip data: %w", err)
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("decompressing: %w", err)
	}
	if len(out) > MaxFileSize {
		return nil, fmt.Errorf("content decompresses to more than %d bytes", MaxFileSize)
	}
	return out, nil
}

// parseCommands reads a list of commands (runcmd, bootcmd) of module.
func parseCommands(n *yaml.Node, module string, boot bool) ([]Action, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errorAt(n, "%s must be a list of commands, found %s", module, kindName(n))
	}
	var cmds []Action
	for i, item := range n.Content {
		item = resolve(item)
		where := fmt.Sprintf("%s[%d]", module, i)
		switch item.Kind {
		case yaml.ScalarNode:
			if isNull(item) || strings.TrimSpace(item.Value) == "" {
				return nil, errorAt(item, "%s is empty", where)
			}
			cmds = append(cmds, &RunCommand{Args: []string{"/bin/sh", "-c", item.Value}, Boot: boot, Line: item.Line})
		case yaml.SequenceNode:
			if len(item.Content) == 0 {
				return nil, errorAt(item, "%s is an empty list: write the program and its arguments", where)
			}
			args := make([]string, 0, len(item.Content))
			for j, a := range item.Content {
				a = resolve(a)
				if a.Kind != yaml.ScalarNode || isNull(a) {
					return nil, errorAt(a, "%s[%d] must be a string, found %s", where, j, kindName(a))
				}
				args = append(args, a.Value)
			}
			if args[0] == "" {
				return nil, errorAt(item, "%s has an empty program name", where)
			}
			cmds = append(cmds, &RunCommand{Args: args, Boot: boot, Line: item.Line})
		default:
			return nil, errorAt(item, "%s must be a string or a list of strings, found %s", where, kindName(item))
		}
	}
	return cmds, nil
}
