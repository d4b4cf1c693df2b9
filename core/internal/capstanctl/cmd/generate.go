package cmd

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"capstan.dev/core/internal/capstanctl/template"
)

// generateFlags maps the flags of `generate cluster` to template variables.
type generateFlags struct {
	namespace          string
	kubernetesVersion  string
	controlPlaneCount  int
	workerCount        int
	flavor             string
	infrastructure     string
	config             string
	listVariables      bool
	variableOfFlagName map[string]string
}

// kubernetesVersion is the shape KubeadmControlPlane and Machines accept.
var kubernetesVersion = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]+)?$`)

func newGenerateCommand() *cobra.Command {
	parent := groupCommand("generate", "Generate the YAML of a workload cluster")
	o := &generateFlags{variableOfFlagName: map[string]string{
		"target-namespace":            "NAMESPACE",
		"kubernetes-version":          "KUBERNETES_VERSION",
		"control-plane-machine-count": "CONTROL_PLANE_MACHINE_COUNT",
		"worker-machine-count":        "WORKER_MACHINE_COUNT",
	}}
	c := &cobra.Command{
		Use:   "cluster NAME",
		Short: "Print the objects of a workload cluster from a built-in template",
		Long: `Print the objects of a workload cluster, rendered from a built-in template: a Cluster, its
DockerCluster, a KubeadmControlPlane and, by default, a MachineDeployment of workers
(--flavor machinepool: a MachinePool). --flavor development prints upstream's development flavor:
a Cluster whose spec.topology uses the ClusterClass quick-start (apply
examples/clusterclass-quick-start.yaml first), with the class's variables; --flavor development-mp
is the same with a MachinePool of workers. Apply the output with
kubectl apply -f -.

Templates use clusterctl's variables: ${VAR}, ${VAR:=default} and ${VAR:-default}. A value comes
from a flag you set, else an environment variable of the same name, else the template's default,
else the flag's default. See a template's variables with --list-variables.`,
		Example: `  capstanctl generate cluster quickstart --kubernetes-version v1.37.2 --worker-machine-count 2 | kubectl apply -f -
  POD_CIDR=192.168.0.0/16 capstanctl generate cluster dev --flavor machinepool
  capstanctl generate cluster dev --flavor development | capstanctl topology plan -f -
  capstanctl generate cluster --list-variables`,
		Args: func(c *cobra.Command, args []string) error {
			if o.listVariables && len(args) <= 1 {
				return nil
			}
			return exactlyOneName("Cluster")(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			raw, env, err := o.template()
			if err != nil {
				return err
			}
			if o.listVariables {
				return o.printVariables(c, raw)
			}
			values, err := o.values(c.Flags(), args[0])
			if err != nil {
				return err
			}
			values.Env = env
			out, err := template.Render(raw, values)
			if err != nil {
				return err
			}
			_, err = c.OutOrStdout().Write(out)
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&o.kubernetesVersion, "kubernetes-version", "v1.37.2", "Kubernetes version of the control plane and workers (KUBERNETES_VERSION)")
	f.IntVar(&o.controlPlaneCount, "control-plane-machine-count", 1, "number of control plane Machines (CONTROL_PLANE_MACHINE_COUNT)")
	f.IntVar(&o.workerCount, "worker-machine-count", 1, "number of worker Machines (WORKER_MACHINE_COUNT)")
	f.StringVar(&o.namespace, "target-namespace", defaultNamespace, "namespace of the generated objects (NAMESPACE)")
	f.StringVarP(&o.flavor, "flavor", "f", "", "template flavor: "+flavorList())
	f.BoolVar(&o.listVariables, "list-variables", false, "list the template's variables instead of rendering it")
	f.StringVarP(&o.infrastructure, "infrastructure", "i", "", "render the cluster template of this infrastructure provider's release, NAME[:VERSION] from the configuration file's repositories "+
		"(cluster-template.yaml, or cluster-template-<flavor>.yaml), as clusterctl generate cluster --infrastructure")
	f.StringVar(&o.config, "config", "", "clusterctl configuration file listing the providers' repositories and variables (default: clusterctl.yaml or capstanctl.yaml in $XDG_CONFIG_HOME/cluster-api or ~/.cluster-api)")
	parent.AddCommand(c)
	return parent
}

func flavorList() string {
	var names []string
	for _, f := range template.Flavors() {
		if f == template.DefaultFlavor {
			f = `"" (default)`
		}
		names = append(names, f)
	}
	return strings.Join(names, ", ")
}

// values splits the flags into those the user set (they win) and the defaults of
// the others (the last resort), and validates the ones set.
func (o *generateFlags) values(flags *pflag.FlagSet, name string) (template.Values, error) {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return template.Values{}, fmt.Errorf("cluster name %q is invalid: %s; use lowercase letters, digits and '-', at most 63 characters",
			name, strings.Join(errs, "; "))
	}
	if o.controlPlaneCount < 0 || o.workerCount < 0 {
		return template.Values{}, fmt.Errorf("machine counts cannot be negative")
	}
	if flags.Changed("kubernetes-version") && !kubernetesVersion.MatchString(o.kubernetesVersion) {
		return template.Values{}, fmt.Errorf("--kubernetes-version %q is not a Kubernetes version: write it as vMAJOR.MINOR.PATCH, e.g. v1.37.2", o.kubernetesVersion)
	}
	v := template.Values{
		Flags:        map[string]string{"CLUSTER_NAME": name},
		Env:          os.LookupEnv,
		FlagDefaults: map[string]string{},
	}
	vals := map[string]string{
		"target-namespace":            o.namespace,
		"kubernetes-version":          o.kubernetesVersion,
		"control-plane-machine-count": strconv.Itoa(o.controlPlaneCount),
		"worker-machine-count":        strconv.Itoa(o.workerCount),
	}
	for flag, variable := range o.variableOfFlagName {
		if flags.Changed(flag) {
			v.Flags[variable] = vals[flag]
		} else {
			v.FlagDefaults[variable] = vals[flag]
		}
	}
	return v, nil
}

func (o *generateFlags) printVariables(c *cobra.Command, raw []byte) error {
	vars, err := template.Variables(raw)
	if err != nil {
		return err
	}
	flagOf := map[string]string{"CLUSTER_NAME": "the NAME argument"}
	for flag, variable := range o.variableOfFlagName {
		flagOf[variable] = "--" + flag
	}
	var required, optional []string
	for _, v := range vars {
		switch {
		case v.Default != nil:
			optional = append(optional, fmt.Sprintf("  %s\t(default %q)", v.Name, *v.Default))
		case flagOf[v.Name] != "":
			required = append(required, fmt.Sprintf("  %s\t(set by %s)", v.Name, flagOf[v.Name]))
		default:
			required = append(required, fmt.Sprintf("  %s\t(set it in the environment)", v.Name))
		}
	}
	tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Required variables:")
	for _, l := range required {
		fmt.Fprintln(tw, l)
	}
	fmt.Fprintln(tw, "\nOptional variables:")
	for _, l := range optional {
		fmt.Fprintln(tw, l)
	}
	return tw.Flush()
}
