/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cloudinit

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"
)

// carry returns the content and encoding to write in the YAML document so that the node decodes
// them to the same bytes as content decoded with enc.
//
// Plain content that would not survive YAML unchanged (see yamlSafe: binary files, raw gzip) and
// gzip content get one extra base64 layer, which cloud-init removes: plain becomes base64 and gzip
// becomes gzip+base64. Base64
// content is checked to decode, and gzip content to start with a gzip header, because a
// mislabelled file would otherwise only fail on the node. The gzip stream itself is not
// decompressed here: it may come from a Secret and be arbitrarily large once inflated.
func carry(content []byte, enc Encoding) (string, Encoding, error) {
	switch enc {
	case Plain:
		if yamlSafe(content) {
			return string(content), Plain, nil
		}
		return base64.StdEncoding.EncodeToString(content), Base64, nil
	case Base64:
		if _, err := decodeBase64(content); err != nil {
			return "", "", err
		}
		return string(content), Base64, nil
	case Gzip:
		if err := checkGzipHeader(content); err != nil {
			return "", "", err
		}
		return base64.StdEncoding.EncodeToString(content), GzipBase64, nil
	case GzipBase64:
		raw, err := decodeBase64(content)
		if err != nil {
			return "", "", err
		}
		if err := checkGzipHeader(raw); err != nil {
			return "", "", fmt.Errorf("after base64 decoding: %w", err)
		}
		return string(content), GzipBase64, nil
	default:
		return "", "", fmt.Errorf("unknown encoding %q: want none, %q, %q or %q", enc, Base64, Gzip, GzipBase64)
	}
}

// Decoded returns the bytes the file's content decodes to, and whether they are gzip-compressed
// (encodings gzip and gzip+base64: the node decompresses them). As carry, it checks base64 and
// the gzip header but does not inflate the stream.
func (f File) Decoded() (content []byte, gzipped bool, err error) {
	switch f.Encoding {
	case Plain:
		return f.Content, false, nil
	case Base64:
		content, err = decodeBase64(f.Content)
		return content, false, err
	case Gzip:
		return f.Content, true, checkGzipHeader(f.Content)
	case GzipBase64:
		if content, err = decodeBase64(f.Content); err != nil {
			return nil, false, err
		}
		if err := checkGzipHeader(content); err != nil {
			return nil, false, fmt.Errorf("after base64 decoding: %w", err)
		}
		return content, true, nil
	}
	return nil, false, fmt.Errorf("unknown encoding %q: want none, %q, %q or %q", f.Encoding, Base64, Gzip, GzipBase64)
}

// decodeBase64 decodes standard, padded base64 as cloud-init does; line breaks are allowed, as in
// the output of the base64 command.
func decodeBase64(content []byte) ([]byte, error) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(content)))
	n, err := base64.StdEncoding.Decode(out, content)
	if err != nil {
		return nil, fmt.Errorf("content is not valid base64: %w", err)
	}
	return out[:n], nil
}

func checkGzipHeader(content []byte) error {
	if len(content) == 0 {
		return errors.New("content is empty, not gzip data")
	}
	if _, err := gzip.NewReader(bytes.NewReader(content)); err != nil {
		return fmt.Errorf("content is not gzip data: %w", err)
	}
	return nil
}

// yamlSafe reports whether text comes back unchanged from the YAML encoder and decoder: valid
// UTF-8 made of tab, line feed, carriage return and printable characters only. The encoder refuses
// DEL, C1 controls and U+FFFE/U+FFFF, and silently turns NEL (U+0085) into a space; other
// control characters would survive but have no place in text, so they count as binary too.
func yamlSafe(text []byte) bool {
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		if r == utf8.RuneError && size <= 1 {
			return false
		}
		text = text[size:]
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r >= 0x20 && r <= 0x7e:
		case r >= 0xa0 && r <= 0xd7ff:
		case r >= 0xe000 && r <= 0xfffd:
		case r >= 0x10000 && r <= utf8.MaxRune:
		default:
			return false
		}
	}
	return true
}
