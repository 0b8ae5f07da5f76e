package kubetext

import (
	"strconv"
	"strings"

	"github.com/rwdiag/rwdiag/internal/lazyre"
)

// Indentation of a container's lines, relative to the pod's "Name:"
// (describe.go prefixWriter: two spaces a level): the name at LEVEL_1, its
// fields at LEVEL_2, the lines under a field at LEVEL_3.
const (
	ctrNameIndent  = 2
	ctrFieldIndent = 4
	ctrSubIndent   = 6
)

// Environment lines that are not literal values (describeContainerEnvVars).
var (
	envSecretRe    = lazyre.New(`^<set to the key '(.*)' in secret '(.*)'>\s+Optional: (true|false)$`)
	envConfigMapRe = lazyre.New(`^<set to the key '(.*)' of config map '(.*)'>\s+Optional: (true|false)$`)
	envFieldRe     = lazyre.New(`^(?:(.*) )?\((v1|[a-z0-9.-]+/v[0-9a-z]+):([^()]+)\)$`)
	envResourceRe  = lazyre.New(`^(?:(.*) )?\(((?:limits|requests)\.[A-Za-z0-9./_-]+)\)$`)
	portRe         = lazyre.New(`^([0-9]{1,5})/([A-Z]+)(?: \((.+)\))?$`)
)

// containerLine reads a line under "Containers:", "Init Containers:" or
// "Ephemeral Containers:"; rel is its indentation past the pod's.
func (p *describeParser) containerLine(l line, rel int, text string) {
	body := strings.TrimSpace(text)
	switch {
	case rel == ctrNameIndent:
		name, ok := strings.CutSuffix(body, ":")
		if !ok || name == "" || strings.ContainsAny(name, " :") {
			p.problem(l, "not a container name line (\"  <name>:\")")
			return
		}
		p.flush()
		*p.list = append(*p.list, Container{Name: name, Line: l.n})
		p.ctr = &(*p.list)[len(*p.list)-1]
		p.sub, p.state, p.env = "", nil, nil
	case p.ctr == nil:
		p.problem(l, "container field before any container name")
	case rel == ctrFieldIndent:
		p.containerField(l, body)
	case rel >= ctrSubIndent:
		p.containerSub(l, rel, text, body)
	default:
		p.problem(l, "unexpected indentation (%d) in a container", rel)
	}
}

// containerField reads a field of a container (LEVEL_2).
func (p *describeParser) containerField(l line, body string) {
	key, val, ok := splitKey(body)
	if !ok {
		p.problem(l, "not a \"Field:  value\" line of a container")
		return
	}
	c := p.ctr
	p.sub, p.state, p.env = "skip", nil, nil
	switch key {
	case "Container ID":
		c.HasStatus = true
		c.ContainerID = val
	case "Image":
		c.Image = val
	case "Image ID":
		c.ImageID = val
	case "Port", "Ports":
		c.Ports = p.ports(l, val)
	case "Command":
		p.sub = "command"
	case "Args":
		p.sub = "args"
	case "State", "Last State":
		c.HasStatus = true
		s := &c.State
		if key == "Last State" {
			s = &c.LastState
		}
		switch val {
		case "Running", "Waiting", "Terminated":
			*s = State{Kind: val, Line: l.n}
		default:
			p.problem(l, "%s is not Running, Waiting or Terminated", key)
			*s = State{Line: l.n}
		}
		p.sub, p.state = "state", s
	case "Ready":
		switch val {
		case "True":
			c.Ready = new(true)
		case "False":
			c.Ready = new(false)
		default:
			p.problem(l, "Ready is not True or False")
		}
	case "Restart Count":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			p.problem(l, "Restart Count is not a count")
		}
		c.RestartCount = max(n, 0)
	case "Limits", "Requests":
		p.sub = strings.ToLower(key)
	case "Environment":
		if val == "" {
			p.sub = "env"
		} else if val != "<none>" {
			p.problem(l, "unexpected text after \"Environment:\"")
		}
	case "Environment Variables from":
		p.sub = "envfrom"
	}
	// Host Port(s), SeccompProfile, Liveness, Readiness, Startup, Mounts,
	// Devices and fields of later kubectl versions are not read.
}

func (p *describeParser) ports(l line, val string) []Port {
	if val == "" || val == "<none>" {
		return nil
	}
	var ports []Port
	for _, s := range strings.Split(val, ", ") {
		m := portRe.Re().FindStringSubmatch(s)
		if m == nil {
			p.problem(l, "not a port (\"5688/TCP (name)\")")
			continue
		}
		n, _ := strconv.Atoi(m[1])
		ports = append(ports, Port{ContainerPort: n, Protocol: m[2], Name: m[3]})
	}
	return ports
}

// containerSub reads a line under a container's field (LEVEL_3 and deeper).
func (p *describeParser) containerSub(l line, rel int, text, body string) {
	c := p.ctr
	switch p.sub {
	case "command", "args":
		// Each line of each argument, as is.
		s := text[ctrSubIndent:]
		if p.sub == "command" {
			c.Command = append(c.Command, s)
		} else {
			c.Args = append(c.Args, s)
		}
	case "state":
		if rel != ctrSubIndent {
			p.problem(l, "unexpected indentation (%d) in a container state", rel)
			return
		}
		p.stateField(l, body)
	case "limits", "requests":
		key, val, ok := splitKey(body)
		if !ok || rel != ctrSubIndent {
			p.problem(l, "not a \"resource:  quantity\" line")
			return
		}
		m := &c.Limits
		if p.sub == "requests" {
			m = &c.Requests
		}
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[key] = val
	case "env":
		p.envLine(l, rel, text, body)
	case "envfrom":
		p.envFromLine(l, body)
	case "skip":
	default:
		p.problem(l, "indented text under no container field")
	}
}

// stateField reads a line under "State:" or "Last State:" (describeStatus).
func (p *describeParser) stateField(l line, body string) {
	key, val, ok := splitKey(body)
	if !ok {
		p.problem(l, "not a \"Field:  value\" line of a container state")
		return
	}
	s := p.state
	switch key {
	case "Reason":
		s.Reason = val
	case "Message":
		s.Message = val
		p.flush()
		p.text, p.contDst = stateMessage, &s.Message
	case "Exit Code", "Signal":
		n, err := strconv.Atoi(val)
		if err != nil {
			p.problem(l, "%s is not a number", key)
			return
		}
		if key == "Signal" {
			s.Signal = n
		} else {
			s.ExitCode = &n
		}
	case "Started", "Finished":
		t, err := ParseTime(val)
		if err != nil {
			p.problem(l, "%s: %v", key, err)
			return
		}
		if key == "Started" {
			s.StartedAt = t
		} else {
			s.FinishedAt = t
		}
	default:
		p.problem(l, "unknown container state field %q", key)
	}
}

// envLine reads a line under "Environment:" (describeContainerEnvVars). A
// value with several lines continues on lines indented to its column.
func (p *describeParser) envLine(l line, rel int, text, body string) {
	if rel > ctrSubIndent {
		if p.env == nil {
			p.problem(l, "indented text under \"Environment:\" before any variable")
			return
		}
		cont := body
		if p.envAt > 0 && p.envAt <= len(text) && strings.TrimSpace(text[:p.envAt]) == "" {
			cont = text[p.envAt:]
		}
		p.cont(&p.env.Value, cont)
		return
	}
	key, val, ok := splitKey(body)
	if !ok {
		p.problem(l, "not a \"NAME:  value\" line under \"Environment:\"")
		return
	}
	e := EnvVar{Name: key, Value: val, Line: l.n}
	if m := envSecretRe.Re().FindStringSubmatch(val); m != nil {
		e.Value, e.Source = "", &EnvSource{Kind: "secretKeyRef", Key: m[1], Name: m[2], Optional: m[3] == "true"}
	} else if m := envConfigMapRe.Re().FindStringSubmatch(val); m != nil {
		e.Value, e.Source = "", &EnvSource{Kind: "configMapKeyRef", Key: m[1], Name: m[2], Optional: m[3] == "true"}
	} else if m := envFieldRe.Re().FindStringSubmatch(val); m != nil {
		e.Value, e.Source = m[1], &EnvSource{Kind: "fieldRef", APIVersion: m[2], FieldPath: m[3]}
	} else if m := envResourceRe.Re().FindStringSubmatch(val); m != nil {
		e.Value, e.Source = m[1], &EnvSource{Kind: "resourceFieldRef", Resource: m[2]}
	}
	p.flush()
	p.ctr.Env = append(p.ctr.Env, e)
	p.env = &p.ctr.Env[len(p.ctr.Env)-1]
	// The value column: where the value starts on this line.
	p.envAt = 0
	if val != "" {
		if i := strings.Index(text, key+":"); i >= 0 {
			if j := strings.Index(text[i+len(key)+1:], val); j >= 0 {
				p.envAt = i + len(key) + 1 + j
			}
		}
	}
}

// envFromLine reads a line under "Environment Variables from:"
// (describeContainerEnvFrom): "<name>  ConfigMap|Secret[ with prefix 'P']  Optional: <bool>".
func (p *describeParser) envFromLine(l line, body string) {
	cells := splitWide(body, 3)
	if len(cells) != 3 || !strings.HasPrefix(cells[2], "Optional: ") {
		p.problem(l, "not a \"name  ConfigMap|Secret  Optional: bool\" line")
		return
	}
	kind, prefix, _ := strings.Cut(cells[1], " with prefix ")
	if kind != "ConfigMap" && kind != "Secret" {
		p.problem(l, "environment source is neither ConfigMap nor Secret")
		return
	}
	p.ctr.EnvFrom = append(p.ctr.EnvFrom, EnvFrom{Kind: kind, Name: cells[0],
		Prefix: strings.Trim(prefix, "'"), Optional: cells[2] == "Optional: true"})
}
