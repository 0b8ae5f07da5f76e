package analyze

import (
	"errors"
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
)

// exprCompiler compiles one rule's expressions as expr.Compile does with
// compileExpr's options, but with one expr configuration made for all of
// them: expr.Compile makes a new one per expression (a copy of expr's
// builtins, every function's types), a third of compiling the short
// expressions rules have. Only the environment and the expected kind
// change from one expression to the next. TestBuiltinCacheSameRules
// checks that the built-in rules compile to the same bytecode either way.
// Not safe for concurrent use: one rule's deferred compilation runs once.
type exprCompiler struct {
	conf *conf.Config
}

func (x *exprCompiler) compile(src string, env map[string]any, opts ...expr.Option) (*vm.Program, error) {
	c := x.conf
	if c == nil {
		c = conf.CreateNew()
		for _, op := range exprFunctions() {
			op(c)
		}
		for _, op := range tickFunctions() {
			op(c)
		}
		expr.Patch(budgetPatcher{})(c)
		x.conf = c
	}
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
