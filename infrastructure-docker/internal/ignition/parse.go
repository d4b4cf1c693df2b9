package ignition

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"capstan.dev/infrastructure-docker/internal/cloudinit"
)

// Line is the line every action reports: Ignition configs are JSON, written by the bootstrap
// providers on one line, and the decoder keeps no positions. Errors name the field instead.
const Line = 1

// unitDir is where unit files and their drop-ins are written, as Ignition writes them.
const unitDir = "/etc/systemd/system"

// Error is a field of the config that cannot be executed.
type Error struct {
	// Field is the JSON path, e.g. "storage.files[2].contents.source"; empty for the document.
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "ignition: " + e.Msg
	}
	return fmt.Sprintf("ignition %s: %s", e.Field, e.Msg)
}

func errorAt(field, format string, args ...any) error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// config holds the parts of an Ignition config, spec 2.x or 3.x, the provider executes.
type config struct {
	Ignition struct {
		Version string `json:"version"`
	} `json:"ignition"`
	Storage struct {
		Files []file `json:"files"`
	} `json:"storage"`
	Systemd struct {
		Units []unit `json:"units"`
	} `json:"systemd"`
}

type file struct {
	Path     string    `json:"path"`
	Contents *resource `json:"contents"`
	Mode     *int64    `json:"mode"`
	User     *identity `json:"user"`
	Group    *identity `json:"group"`
	// Append is a boolean in spec 2.x, a list of resources to append in 3.x.
	Append json.RawMessage `json:"append"`
}

type resource struct {
	Source      *string `json:"source"`
	Compression string  `json:"compression"`
}

type identity struct {
	ID   *int64 `json:"id"`
	Name string `json:"name"`
}

type unit struct {
	Name     string  `json:"name"`
	Contents *string `json:"contents"`
	Enabled  *bool   `json:"enabled"`
	// Enable is spec 2.x's deprecated spelling of Enabled.
	Enable  bool     `json:"enable"`
	Mask    bool     `json:"mask"`
	Dropins []dropin `json:"dropins"`
}

type dropin struct {
	Name     string  `json:"name"`
	Contents *string `json:"contents"`
}

// ignoredSections are the sections a node container has nothing to do with, and why.
var ignoredSections = map[string]string{
	"passwd":              "users are not created from Ignition data in a node container",
	"networkd":            "the node container's network is Docker's",
	"storage.disks":       "a node container has no disks of its own",
	"storage.raid":        "a node container has no disks of its own",
	"storage.filesystems": "a node container has no disks of its own",
	"storage.luks":        "a node container has no disks of its own",
	"storage.directories": "directories are created with the files written in them",
	"storage.links":       "links are not created in a node container",
	"kernelArguments":     "a node container shares the host's kernel",
}

// Parse reads an Ignition config into actions in the order booting with it runs them: the
// files, the unit files and drop-ins, then systemd reloaded, masked units masked and enabled units
// enabled and started.
func Parse(data []byte) (*cloudinit.Result, error) {
	var cfg config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, jsonError(err)
	}
	major, _, _ := strings.Cut(cfg.Ignition.Version, ".")
	if major != "2" && major != "3" {
		return nil, errorAt("ignition.version", "%q is not an Ignition spec version the provider reads (2.x or 3.x)", cfg.Ignition.Version)
	}
	res := &cloudinit.Result{Ignored: ignored(data)}
	for i, f := range cfg.Storage.Files {
		writes, err := fileActions(f, fmt.Sprintf("storage.files[%d]", i))
		if err != nil {
			return nil, err
		}
		res.Actions = append(res.Actions, writes...)
	}
	var commands []cloudinit.Action
	for i, u := range cfg.Systemd.Units {
		writes, cmds, err := unitActions(u, fmt.Sprintf("systemd.units[%d]", i))
		if err != nil {
			return nil, err
		}
		res.Actions = append(res.Actions, writes...)
		commands = append(commands, cmds...)
	}
	if len(cfg.Systemd.Units) > 0 {
		res.Actions = append(res.Actions, &cloudinit.RunCommand{Args: []string{"systemctl", "daemon-reload"}, Line: Line})
	}
	res.Actions = append(res.Actions, commands...)
	return res, nil
}

// jsonError names the field of a type mismatch.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return errorAt(typeErr.Field, "must be %s, found a JSON %s", typeErr.Type, typeErr.Value)
	}
	return errorAt("", "the bootstrap data is not an Ignition config (JSON): %v", err)
}

// ignored lists the sections of data that hold something and that the provider skips.
func ignored(data []byte) []cloudinit.Ignored {
	var sections map[string]json.RawMessage
	var storage map[string]json.RawMessage
	_ = json.Unmarshal(data, &sections)
	_ = json.Unmarshal(sections["storage"], &storage)
	var out []cloudinit.Ignored
	for _, key := range []string{"passwd", "networkd", "kernelArguments", "storage.disks", "storage.raid",
		"storage.filesystems", "storage.luks", "storage.directories", "storage.links"} {
		raw := sections[key]
		if sub, ok := strings.CutPrefix(key, "storage."); ok {
			raw = storage[sub]
		}
		if empty(raw) {
			continue
		}
		out = append(out, cloudinit.Ignored{Key: key, Line: Line, Reason: ignoredSections[key]})
	}
	return out
}

// empty reports whether a section holds nothing: absent, null, {} or [].
func empty(raw json.RawMessage) bool {
	switch string(bytes.Join(bytes.Fields(raw), nil)) {
	case "", "null", "{}", "[]":
		return true
	}
	return false
}

// fileActions are the writes of one storage.files entry: its contents, then each resource of a
// spec 3.x append list.
func fileActions(f file, where string) ([]cloudinit.Action, error) {
	p := f.Path
	if !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || path.Clean(p) == "/" {
		return nil, errorAt(where+".path", "%q must be an absolute file path", p)
	}
	mode, err := fileMode(f.Mode)
	if err != nil {
		return nil, errorAt(where+".mode", "%v", err)
	}
	owner, err := fileOwner(f.User, f.Group, where)
	if err != nil {
		return nil, err
	}
	write := &cloudinit.WriteFile{Path: path.Clean(p), Permissions: mode, Owner: owner, Line: Line}
	if write.Content, err = resourceContent(f.Contents, where+".contents"); err != nil {
		return nil, err
	}
	var appends []resource
	switch s := string(bytes.TrimSpace(f.Append)); {
	case s == "" || s == "null" || s == "false":
	case s == "true":
		write.Append = true
	default:
		if err := json.Unmarshal(f.Append, &appends); err != nil {
			return nil, errorAt(where+".append", "must be true, false (spec 2.x) or a list of contents to append (spec 3.x)")
		}
	}
	actions := []cloudinit.Action{write}
	for i := range appends {
		content, err := resourceContent(&appends[i], fmt.Sprintf("%s.append[%d]", where, i))
		if err != nil {
			return nil, err
		}
		a := *write
		a.Content, a.Append = content, true
		actions = append(actions, &a)
	}
	return actions, nil
}

// fileMode reads Ignition's decimal mode (420 is 0644) into mode bits.
func fileMode(m *int64) (fs.FileMode, error) {
	if m == nil {
		return cloudinit.DefaultPermissions, nil
	}
	v := *m
	if v < 0 || v > 0o7777 {
		return 0, fmt.Errorf("%d is not a file mode: write it in decimal, e.g. 420 for 0644", v)
	}
	mode := fs.FileMode(v & 0o777)
	for bit, flag := range map[int64]fs.FileMode{0o4000: fs.ModeSetuid, 0o2000: fs.ModeSetgid, 0o1000: fs.ModeSticky} {
		if v&bit != 0 {
			mode |= flag
		}
	}
	return mode, nil
}

// validName is a user or group name chown accepts.
var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// fileOwner is "user:group", each root when unset, as Ignition defaults them.
func fileOwner(user, group *identity, where string) (string, error) {
	u, err := identityName(user, where+".user")
	if err != nil {
		return "", err
	}
	g, err := identityName(group, where+".group")
	if err != nil {
		return "", err
	}
	return u + ":" + g, nil
}

func identityName(id *identity, field string) (string, error) {
	switch {
	case id == nil || (id.ID == nil && id.Name == ""):
		return "root", nil
	case id.Name != "":
		if !validName.MatchString(id.Name) {
			return "", errorAt(field+".name", "%q is not a user or group name", id.Name)
		}
		return id.Name, nil
	case *id.ID < 0:
		return "", errorAt(field+".id", "%d is not a user or group ID", *id.ID)
	}
	return strconv.FormatInt(*id.ID, 10), nil
}

// resourceContent decodes a resource's inline contents: a "data:" URL, optionally gzip.
func resourceContent(r *resource, field string) ([]byte, error) {
	if r == nil || r.Source == nil {
		return nil, nil
	}
	body, err := dataURL(*r.Source)
	if err != nil {
		return nil, errorAt(field+".source", "%v", err)
	}
	switch r.Compression {
	case "":
		if len(body) > cloudinit.MaxFileSize {
			return nil, errorAt(field+".source", "the content is larger than %d bytes", cloudinit.MaxFileSize)
		}
		return body, nil
	case "gzip":
		out, err := cloudinit.Gunzip(body)
		if err != nil {
			return nil, errorAt(field+".compression", "%v", err)
		}
		return out, nil
	}
	return nil, errorAt(field+".compression", "%q is not a compression the provider reads (gzip)", r.Compression)
}

// dataURL decodes an RFC 2397 "data:" URL. An empty source is an empty file, as in Ignition.
func dataURL(source string) ([]byte, error) {
	if source == "" {
		return nil, nil
	}
	rest, ok := strings.CutPrefix(source, "data:")
	if !ok {
		return nil, fmt.Errorf("fetching file contents from %q is not supported in a node container: put the contents inline (a \"data:\" URL)", truncate(source))
	}
	header, body, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, fmt.Errorf("the data URL has no \",\" before its data")
	}
	if strings.HasSuffix(header, ";base64") {
		out, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			if unescaped, uerr := url.PathUnescape(body); uerr == nil {
				out, err = base64.StdEncoding.DecodeString(unescaped)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("the data URL's base64 data does not decode: %w", err)
		}
		return out, nil
	}
	out, err := url.PathUnescape(body)
	if err != nil {
		return nil, fmt.Errorf("the data URL's data is not percent-encoded: %w", err)
	}
	return []byte(out), nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// unitActions are the writes of one systemd.units entry (its unit file and drop-ins) and the
// commands that take effect after systemd is reloaded.
func unitActions(u unit, where string) (writes, commands []cloudinit.Action, err error) {
	if !validUnitName(u.Name) {
		return nil, nil, errorAt(where+".name", "%q is not a systemd unit name such as kubeadm.service", u.Name)
	}
	if u.Contents != nil {
		writes = append(writes, &cloudinit.WriteFile{Path: unitDir + "/" + u.Name, Content: []byte(*u.Contents),
			Permissions: cloudinit.DefaultPermissions, Owner: cloudinit.DefaultOwner, Line: Line})
	}
	for i, d := range u.Dropins {
		if !validUnitName(d.Name) {
			return nil, nil, errorAt(fmt.Sprintf("%s.dropins[%d].name", where, i), "%q is not a drop-in file name such as 10-override.conf", d.Name)
		}
		var content []byte
		if d.Contents != nil {
			content = []byte(*d.Contents)
		}
		writes = append(writes, &cloudinit.WriteFile{Path: unitDir + "/" + u.Name + ".d/" + d.Name, Content: content,
			Permissions: cloudinit.DefaultPermissions, Owner: cloudinit.DefaultOwner, Line: Line})
	}
	if u.Mask {
		commands = append(commands, &cloudinit.RunCommand{Args: []string{"systemctl", "mask", u.Name}, Line: Line})
	}
	if u.Enable || (u.Enabled != nil && *u.Enabled) {
		// Booting would start an enabled unit; the container has booted, so it is started now,
		// and a oneshot unit's failure fails the bootstrap.
		commands = append(commands, &cloudinit.RunCommand{Args: []string{"systemctl", "enable", "--now", u.Name}, Line: Line})
	}
	return writes, commands, nil
}

var unitName = regexp.MustCompile(`^[A-Za-z0-9:_.@\\-]+$`)

func validUnitName(name string) bool {
	return unitName.MatchString(name) && name != "." && name != ".." && len(name) <= 255
}
