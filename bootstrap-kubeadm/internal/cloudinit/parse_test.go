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
	"fmt"
	"io"
	"sync"

	"sigs.k8s.io/yaml"
)

// parse reads a rendered document back the way a consumer would: the header line, then strict
// YAML (an unknown or misspelt key is an error).
func parse(out []byte) (document, error) {
	if !bytes.HasPrefix(out, []byte(Header)) {
		return document{}, fmt.Errorf("document does not start with %q", Header)
	}
	var doc document
	if err := yaml.UnmarshalStrict(out, &doc); err != nil {
		return document{}, fmt.Errorf("parsing the rendered document: %w", err)
	}
	return doc, nil
}

// unwrap removes the base64 layer of content, if enc has one, and says whether what is left is
// gzip data. Two (content, encoding) pairs that unwrap to the same result make cloud-init write
// the same file, without inflating anything.
func unwrap(content []byte, enc Encoding) (data []byte, gzipped bool, err error) {
	switch enc {
	case Plain:
		return content, false, nil
	case Base64, GzipBase64:
		data, err = base64.StdEncoding.DecodeString(string(content))
		return data, enc == GzipBase64, err
	case Gzip:
		return content, true, nil
	default:
		return nil, false, fmt.Errorf("unknown encoding %q", enc)
	}
}

// decode returns the bytes cloud-init writes for content encoded as enc.
func decode(content []byte, enc Encoding) ([]byte, error) {
	data, gzipped, err := unwrap(content, enc)
	if err != nil || !gzipped {
		return data, err
	}
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// gzipWriters recycles compressors: a new one allocates hundreds of kilobytes, which would
// dominate each fuzz execution.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}

// gzipped returns data compressed with gzip.
func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&b)
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}
