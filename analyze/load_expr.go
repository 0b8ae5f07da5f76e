package analyze

import (
	"errors"
	"reflect"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
)

// exprCompiler compiles expressions as expr.Compile does with
// compileExpr's options, but with expr configurations made once and
// reused (exprConfs): expr.Compile makes a new one per expression (a copy
// of expr's builtins, every function's types), a third of compiling the
// short expressions rules have. Only the environment and the expected kind
// change from one expression to the next. TestBuiltinCacheSameRules checks
// that the built-in rules compile to the same bytecode either way.
type exprCompiler struct{}

// exprConfs are the expr configurations exprCompiler reuses, one per
// compilation running at a time.
var exprConfs = sync.Pool{New: func() any {
	c := conf.CreateNew()
	for _, op := range exprFunctions() {
		op(c)
	}
	for _, op := range tickFunctions() {
		op(c)
	}
	expr.Patch(budgetPatcher{})(c)
	return c
}}

func (exprCompiler) compile(src string, env map[string]any, opts ...expr.Option) (*vm.Program, error) {
	c := exprConfs.Get().(*conf.Config)
	defer func() {
		c.EnvObject, c.Env = nil, nature.Nature{} // keep no rule's values
		exprConfs.Put(c)
	}()
	c.WithEnv(env)
	c.Expect, c.ExpectAny = reflect.Invalid, false // what the options below set (expr.AsBool)
	for _, op := range opts {
		op(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	c.Check()
	// expr.Compile from here on.
	tree, err := checker.ParseCheck(src, c)
	if err != nil {
		return nil, err
	}
	if c.Optimize {
		if err := optimizer.Optimize(&tree.Node, c); err != nil {
			var fileError *file.Error
			if errors.As(err, &fileError) {
				return nil, fileError.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, c)
}
