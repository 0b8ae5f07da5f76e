package kubetext

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxProblems bounds the problems one parse reports; a file that is not
// kubectl output at all would otherwise yield one per line.
const maxProblems = 1000

// podKeys are the top-level fields of describePod (kubectl
// pkg/describe/describe.go), past and present. Inside free text (a
// multi-line message) only these end the text.
var podKeys = map[string]bool{
	"Name": true, "Namespace": true, "Priority": true, "Priority Class Name": true,
	"PriorityClassName": true, "Runtime Class Name": true, "Service Account": true,
	"Node": true, "Start Time": true, "Labels": true, "Annotations": true,
	"Status": true, "Termination Grace Period": true, "Reason": true, "Message": true,
	"SeccompProfile": true, "LocalhostProfile": true, "IP": true, "IPs": true,
	"Controlled By": true, "NominatedNodeName": true, "Resources": true,
	"Init Containers": true, "Containers": true, "Ephemeral Containers": true,
	"Readiness Gates": true, "Conditions": true, "Volumes": true, "QoS Class": true,
	"Node-Selectors": true, "Tolerations": true, "Topology Spread Constraints": true,
	"SchedulingGroup": true, "Events": true,
}

// ParseDescribe reads `kubectl describe pod` output: one pod, or several as
// kubectl prints them (each description after the first preceded by two
// blank lines). It follows describePod, describeContainers,
// describeContainerState, describeStatus and DescribeEvents in kubectl's
// pkg/describe/describe.go, from kubectl 1.9 to 1.37. Text it cannot read
// becomes a Problem with its line number, and parsing goes on; paste debris
// (shell prompts, Markdown fences, CRLF line ends, a common indentation) is
// tolerated. The text is held in memory while it is read; callers bound its
// size. The error is for reading r only.
func ParseDescribe(r io.Reader) ([]Pod, []Problem, error) {
	p := &describeParser{}
	lines, err := readLines(r, &p.probs)
	for _, l := range lines {
		p.line(l)
	}
	p.endPod()
	// A pod's own problems (cut short, no exit code) are found at its end.
	slices.SortStableFunc(p.probs, func(a, b Problem) int { return a.Line - b.Line })
	return p.pods, p.probs, err
}

// freeText is a multi-line value being read: it takes every line until
// one that ends it.
type freeText int

const (
	noText       freeText = iota
	podMessage            // pod "Message:", ended by a top-level field
	stateMessage          // a terminated state's "Message:", ended by "Exit Code:"
)

type describeParser struct {
	pods  []Pod
	probs []Problem

	cur     *Pod // last of pods, nil before the first
	base    int  // the indentation of the pod's "Name:" line
	section string
	hasCtrs bool

	// containers
	list  *[]Container
	ctr   *Container
	sub   string // field of the container whose lines follow
	state *State
	env   *EnvVar
	envAt int // column where the env value starts, for continuation lines

	// events
	evHeader *header
	event    *Event
	blank    bool // a blank line since the last event row

	text freeText
	// Continuation lines of a multi-line value, joined into *contDst by
	// flush: appending line by line would cost the square of their number.
	contDst   *string
	contLines []string
}

// cont adds a continuation line to the value at dst.
func (p *describeParser) cont(dst *string, s string) {
	if dst != p.contDst {
		p.flush()
		p.contDst = dst
	}
	p.contLines = append(p.contLines, s)
}

// flush joins the pending continuation lines into their value. It must run
// before anything is appended to the slice that holds that value.
func (p *describeParser) flush() {
	if p.contDst != nil && len(p.contLines) > 0 {
		*p.contDst += "\n" + strings.Join(p.contLines, "\n")
	}
	p.contDst, p.contLines = nil, nil
}

func (p *describeParser) problem(l line, format string, a ...any) {
	p.report(l.n, l.text, fmt.Sprintf(format, a...))
}

// report adds a problem, up to maxProblems of them.
func (p *describeParser) report(n int, text, reason string) {
	if len(p.probs) == maxProblems {
		reason = "too many problems; no more are reported"
	}
	if len(p.probs) <= maxProblems {
		p.probs = append(p.probs, problem(n, text, reason))
	}
}

func (p *describeParser) line(l line) {
	if p.cur == nil {
		switch {
		case l.blank() || isNoise(l.text):
		case strings.HasPrefix(l.body(), "Name:"):
			p.startPod(l)
		default:
			p.problem(l, "text before the first pod's \"Name:\" line")
		}
		return
	}
	rel := l.indent - p.base
	text := l.body()
	if rel >= 0 {
		text = l.text[p.base:]
	} else {
		rel = 0
	}
	if p.text != noText && !p.endsText(l, rel, text) {
		p.cont(p.contDst, text)
		return
	}
	p.text = noText
	if l.blank() {
		p.blank = true
		return
	}
	if rel == 0 {
		p.topLevel(l, text)
		return
	}
	switch p.section {
	case "Labels":
		p.label(l, strings.TrimSpace(text))
	case "IPs":
		if k, v, ok := splitKey(strings.TrimSpace(text)); ok && k == "IP" {
			p.cur.IPs = append(p.cur.IPs, v)
		} else {
			p.problem(l, "not an \"IP:\" line under \"IPs:\"")
		}
	case "Conditions":
		f := strings.Fields(text)
		switch {
		case len(f) == 2 && f[0] == "Type" && f[1] == "Status":
		case len(f) == 2:
			p.cur.Conditions = append(p.cur.Conditions, Condition{Type: f[0], Status: f[1]})
		default:
			p.problem(l, "not a \"Type Status\" row under \"Conditions:\"")
		}
	case "Containers", "Init Containers", "Ephemeral Containers":
		p.containerLine(l, rel, text)
	case "Events":
		p.eventLine(l, rel, text)
	case "":
		p.problem(l, "indented text outside any field")
	default:
		// Annotations, Volumes, Tolerations, Node-Selectors, pod
		// Resources, Readiness Gates, ...: not read.
	}
}

// endsText reports whether l ends the multi-line value being read.
func (p *describeParser) endsText(l line, rel int, text string) bool {
	key, _, ok := splitKey(strings.TrimSpace(text))
	if ok && rel == 0 && key == "Name" && l.indent <= p.base {
		return true
	}
	switch p.text {
	case podMessage:
		return ok && rel == 0 && podKeys[key]
	case stateMessage:
		return ok && rel == 6 && key == "Exit Code"
	}
	return true
}

func (p *describeParser) startPod(l line) {
	p.endPod()
	_, name, _ := splitKey(l.body())
	p.pods = append(p.pods, Pod{Name: name, Line: l.n})
	p.cur = &p.pods[len(p.pods)-1]
	p.base = l.indent
	p.section, p.hasCtrs = "", false
	p.list, p.ctr, p.sub, p.state, p.env = nil, nil, "", nil, nil
	p.evHeader, p.event, p.blank = nil, nil, false
	p.text = noText
	if name == "" {
		p.problem(l, "pod without a name")
	}
}

func (p *describeParser) endPod() {
	p.flush()
	if p.cur == nil {
		return
	}
	for _, list := range [][]Container{p.cur.InitContainers, p.cur.Containers, p.cur.EphemeralContainers} {
		for _, c := range list {
			for _, s := range []State{c.State, c.LastState} {
				if s.Kind == "Terminated" && s.ExitCode == nil {
					p.report(s.Line, "container "+c.Name, "container "+c.Name+": a terminated state without \"Exit Code:\"")
				}
			}
		}
	}
	if !p.hasCtrs {
		p.report(p.cur.Line, "Name: "+p.cur.Name, "pod "+p.cur.Name+" has no \"Containers:\" section; its description is cut short")
	}
}

// topLevel reads a line of the pod's own fields (indentation 0).
func (p *describeParser) topLevel(l line, text string) {
	key, val, ok := splitKey(text)
	if ok && key == "Name" {
		p.startPod(l)
		return
	}
	if p.section == "Events" && !(ok && podKeys[key]) {
		switch {
		case isNoise(text):
			p.section = ""
		case p.event != nil && !p.blank:
			p.cont(&p.event.Message, text)
		default:
			p.problem(l, "text after the \"Events:\" table")
		}
		return
	}
	if !ok {
		if isNoise(text) {
			p.section = ""
			return
		}
		p.problem(l, "not a \"Field:  value\" line of kubectl describe pod")
		return
	}
	p.section = key
	pod := p.cur
	switch key {
	case "Namespace":
		pod.Namespace = val
	case "Node":
		if val != "<none>" {
			pod.Node, pod.HostIP, _ = strings.Cut(val, "/")
		}
	case "Start Time":
		t, err := ParseTime(val)
		if err != nil {
			p.problem(l, "Start Time: %v", err)
		}
		pod.StartTime = t
	case "Labels":
		p.label(l, val)
	case "Status":
		f := strings.Fields(val)
		if len(f) == 0 {
			p.problem(l, "empty Status")
			break
		}
		pod.Status = f[0]
		pod.Terminating = f[0] == "Terminating"
	case "Reason":
		pod.Reason = val
	case "Message":
		pod.Message = val
		p.flush()
		p.text, p.contDst = podMessage, &pod.Message
	case "IP":
		pod.IP = val
	case "IPs":
		if val != "" && val != "<none>" {
			pod.IPs = append(pod.IPs, val)
		}
	case "Controlled By":
		pod.ControlledBy = val
	case "Service Account":
		pod.ServiceAccount = val
	case "QoS Class":
		pod.QOSClass = val
	case "Containers", "Init Containers", "Ephemeral Containers":
		p.hasCtrs = p.hasCtrs || key == "Containers"
		p.list, p.ctr, p.sub = nil, nil, ""
		switch key {
		case "Containers":
			p.list = &pod.Containers
		case "Init Containers":
			p.list = &pod.InitContainers
		default:
			p.list = &pod.EphemeralContainers
		}
		if val != "" && val != "<none>" {
			p.problem(l, "unexpected text after %q", key+":")
		}
	case "Events":
		p.evHeader, p.event, p.blank = nil, nil, false
		if val != "" && val != "<none>" {
			p.problem(l, "unexpected text after \"Events:\"")
		}
	}
}

// label reads "key=value" of "Labels:"; "<none>" is none.
func (p *describeParser) label(l line, s string) {
	if s == "" || s == "<none>" {
		return
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		p.problem(l, "not a \"key=value\" label")
		return
	}
	if p.cur.Labels == nil {
		p.cur.Labels = map[string]string{}
	}
	p.cur.Labels[k] = v
}
