package patches

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// variableMap is the data patches see for one template: the Cluster's variables, replaced by the
// overrides of the control plane or MachineDeployment the template belongs to, and "builtin".
func variableMap(values, overrides []clusterv1.ClusterVariable, builtin map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, list := range [][]clusterv1.ClusterVariable{values, overrides} {
		for _, v := range list {
			var decoded any
			if len(v.Value.Raw) > 0 {
				if err := utiljson.Unmarshal(v.Value.Raw, &decoded); err != nil {
					return nil, fmt.Errorf("variable %q: value is not JSON: %w", v.Name, err)
				}
			}
			out[v.Name] = decoded
		}
	}
	out["builtin"] = builtin
	return out, nil
}

// segment is one step of a variable path: a name and any array indexes after it ("arr[0][1]").
var segment = regexp.MustCompile(`^([^\[\]]+)((?:\[[0-9]+\])*)$`)

// lookup returns the value at a variable path such as "myVar", "myVar.field",
// "myVar.list[0].name" or "builtin.cluster.name".
func lookup(vars map[string]any, path string) (any, error) {
	var cur any = vars
	walked := ""
	for _, part := range strings.Split(path, ".") {
		m := segment.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("variable path %q: %q is not a name optionally followed by [index]", path, part)
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("variable path %q: %s is not an object", path, walked)
		}
		walked = strings.TrimPrefix(walked+"."+m[1], ".")
		if cur, ok = obj[m[1]]; !ok {
			return nil, fmt.Errorf("variable path %q: %s is not set: set the variable (or give its schema a default)", path, walked)
		}
		for _, idx := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(m[2], "["), "]"), "][") {
			if idx == "" {
				continue
			}
			i, _ := strconv.Atoi(idx)
			arr, ok := cur.([]any)
			if !ok || i >= len(arr) {
				return nil, fmt.Errorf("variable path %q: %s has no item %d", path, walked, i)
			}
			cur = arr[i]
			walked += "[" + idx + "]"
		}
	}
	return cur, nil
}
