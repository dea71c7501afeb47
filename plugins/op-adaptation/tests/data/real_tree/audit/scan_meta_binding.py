"""Scan every @impl(m, op) Meta function of op-plugin against its YAML schema with the dispatcher binding model.
Prints each call pattern that cannot bind (real) and each return-count mismatch.
Usage: /usr/bin/python3 scan_meta_binding.py <op-plugin checkout>"""
import sys
import ast, yaml, torch, json, collections, re
ROOT = sys.argv[1]
MF=ROOT+'/op_plugin/python/meta/_meta_registrations.py'
YF=ROOT+'/op_plugin/config/op_plugin_functions.yaml'
ylines=open(YF).read().split('\n')
d=yaml.safe_load(open(YF))
# schema line numbers
func_line={}
for i,l in enumerate(ylines,1):
    m=re.match(r'\s*- func:\s*(.*)$',l)
    if m:
        f=m.group(1).strip()
        func_line.setdefault(f.split('(')[0],[]).append((i,f))
schemas={}
for sec in ['official','custom','symint','quant','autograd']:
    for e in d.get(sec) or []:
        f=e['func']; n=f.split('(')[0]
        schemas.setdefault(n,{'sec':sec,'func':f,'lines':[l for l,ff in func_line[n]]})
src=open(MF).read(); slines=src.split('\n')
tree=ast.parse(src)
parents={}
for node in ast.walk(tree):
    for c in ast.iter_child_nodes(node): parents[c]=node
def cond_of(node):
    conds=[]; p=parents.get(node)
    while p is not None:
        if isinstance(p,ast.If): conds.append('L%d: if %s'%(p.lineno, ast.unparse(p.test)[:100]))
        if isinstance(p,(ast.FunctionDef,)): conds.append('in def %s'%p.name)
        p=parents.get(p)
    return conds
metas=[]
for node in ast.walk(tree):
    if isinstance(node,ast.FunctionDef):
        for dec in node.decorator_list:
            if isinstance(dec,ast.Call) and getattr(dec.func,'id',None)=='impl' and len(dec.args)>=2:
                lib=ast.unparse(dec.args[0]); op=dec.args[1].value if isinstance(dec.args[1],ast.Constant) else ast.unparse(dec.args[1])
                a=node.args
                pos=a.posonlyargs+a.args
                nd=len(a.defaults)
                P=[]
                for i,x in enumerate(pos):
                    j=i-(len(pos)-nd)
                    P.append(dict(name=x.arg, kind='pos', has_default=j>=0, default=(ast.unparse(a.defaults[j]) if j>=0 else None)))
                for x,dv in zip(a.kwonlyargs,a.kw_defaults):
                    P.append(dict(name=x.arg, kind='kw', has_default=dv is not None, default=(ast.unparse(dv) if dv is not None else None)))
                metas.append(dict(lib=lib, op=op, fn=node.name, line=node.lineno, decline=dec.lineno, params=P,
                    vararg=a.vararg.arg if a.vararg else None, kwarg=a.kwarg.arg if a.kwarg else None, cond=cond_of(node), node=node))
def parse_schema(f):
    s=torch._C.parse_schema(f)
    args=[]
    for a in s.arguments:
        args.append(dict(name=a.name, kwonly=a.kwarg_only, has_default=a.default_value is not None or ('=' in _argtxt(f,a.name)), default=_defaulttxt(f,a.name), type=str(a.type)))
    return dict(args=args, nret=len(s.returns), rets=[str(r.type) for r in s.returns])
def _split(f):
    inner=f[f.index('(')+1:f.rindex(')')] if '->' not in f else f[f.index('(')+1:f.index(') ->') if ') ->' in f else f.rindex(')')]
    # split top-level
    out=[];depth=0;cur=''
    for ch in inner:
        if ch in '([': depth+=1
        if ch in ')]': depth-=1
        if ch==',' and depth==0: out.append(cur.strip()); cur=''
        else: cur+=ch
    if cur.strip(): out.append(cur.strip())
    return [x for x in out if x!='*']
def _argtxt(f,name):
    for x in _split(f):
        t=x.split('=')[0].split()
        if t and t[-1]==name: return x
    return ''
def _defaulttxt(f,name):
    x=_argtxt(f,name)
    return x.split('=',1)[1].strip() if '=' in x else None
import ast
def sval(t):
    if t is None: return ('<nodefault>',)
    t=t.strip()
    if t=='None': return None
    if t in('True','False'): return t=='True'
    if t[0] in '"\'': return t[1:-1]
    if t.startswith('['):
        inner=t[1:-1].strip()
        return tuple(sval(x) for x in inner.split(',')) if inner else ()
    try: return int(t)
    except: pass
    try: return float(t)
    except: return ('sym',t)
def pval(t):
    if t is None: return ('<nodefault>',)
    try:
        v=ast.literal_eval(t)
        if isinstance(v,list): v=tuple(v)
        return v
    except Exception: return ('expr',t)
def same(a,b,typ=''):
    if a==b and type(a)==type(b): return True
    if isinstance(a,(int,float)) and isinstance(b,(int,float)) and not isinstance(a,bool) and not isinstance(b,bool): return a==b
    if isinstance(a,(int,float)) and isinstance(b,tuple) and '[' in typ and all(x==a for x in b): return True
    if isinstance(b,(int,float)) and isinstance(a,tuple) and '[' in typ and all(x==b for x in a): return True
    return False
def reads(meta,name):
    for n in ast.walk(meta['node']):
        if isinstance(n,ast.Name) and n.id==name and isinstance(n.ctx,ast.Load): return True
    return False
def analyse(meta, sch):
    S=sch['args']; Spos=[a for a in S if not a['kwonly']]; K=[a for a in S if a['kwonly']]
    PP=[p for p in meta['params'] if p['kind']=='pos']; PK=[p for p in meta['params'] if p['kind']=='kw']
    byname={p['name']:p for p in meta['params']}
    issues=[]
    n_req=0
    for i,a in enumerate(Spos):
        if not a['has_default']: n_req=i+1
    # positional overflow
    if len(Spos)>len(PP) and not meta['vararg']:
        for i in range(len(PP),len(Spos)):
            a=Spos[i]
            kwd = byname.get(a['name'])
            issues.append(dict(kind='pos_overflow', real=True, arg=a['name'],
                when=('always' if i<n_req else 'when `%s` (or a later positional argument) is not its default %s'%(a['name'],a['default'])),
                detail='schema positional argument %d `%s` has no positional Meta parameter%s: TypeError takes %d positional argument(s) but %d were given'%(i,a['name'],(' (Meta declares it keyword-only)' if kwd and kwd['kind']=='kw' else ''),len(PP),i+1)))
    # python positional param missing
    for i,p in enumerate(PP):
        if p['has_default']: continue
        if i < n_req: continue
        kwmatch=[k for k in K if k['name']==p['name']]
        if i>=len(Spos) and not kwmatch:
            issues.append(dict(kind='py_required_extra', real=True, arg=p['name'], when='always', detail='Meta parameter `%s` (position %d) has no default and no schema argument feeds it: TypeError missing required positional argument'%(p['name'],i)))
            continue
        if kwmatch and not kwmatch[0]['has_default']:
            continue  # always passed by name (multiple-values handled below)
        if i < len(Spos):
            a=Spos[i]
            issues.append(dict(kind='py_no_default', real=True, arg=a['name'], param=p['name'],
              when='when `%s` and every later positional argument are left at their schema default'%a['name'],
              detail='schema `%s` has default %s, Meta parameter `%s` (position %d) has none: trailing default positional args are not passed -> TypeError missing 1 required positional argument'%(a['name'],a['default'],p['name'],i)))
        else:
            issues.append(dict(kind='py_no_default', real=True, arg=kwmatch[0]['name'], param=p['name'],
              when='when keyword-only `%s` is left at its default %s'%(kwmatch[0]['name'],kwmatch[0]['default']),
              detail='keyword-only `%s` is passed only when not default; Meta parameter has no default -> TypeError missing argument'%p['name']))
    for p in PK:
        if p['has_default']: continue
        kwmatch=[k for k in K if k['name']==p['name']]
        if not kwmatch:
            issues.append(dict(kind='py_kwonly_required_unmatched', real=True, arg=p['name'], when='always', detail='Meta keyword-only parameter `%s` has no default and no schema keyword-only argument of that name -> TypeError missing keyword-only argument'%p['name']))
        elif kwmatch[0]['has_default']:
            issues.append(dict(kind='py_no_default', real=True, arg=p['name'], param=p['name'], when='when `%s` is left at its default %s'%(p['name'],kwmatch[0]['default']), detail='schema keyword-only `%s` has default, Meta has none -> TypeError missing keyword-only argument'%p['name']))
    # kw-only schema args
    for k in K:
        p=byname.get(k['name'])
        when_passed = 'always' if not k['has_default'] else 'when a caller passes `%s` != %s'%(k['name'],k['default'])
        if p is None:
            if meta['kwarg']: continue
            issues.append(dict(kind='kw_unaccepted', real=True, arg=k['name'], when=when_passed, detail='keyword-only `%s` is passed by name; the Meta function has no such parameter and no **kwargs -> TypeError unexpected keyword argument'%k['name']))
            continue
        if p['kind']=='pos':
            j=PP.index(p)
            if j < len(Spos):
                issues.append(dict(kind='kw_collides_positional', real=True, arg=k['name'], when=('%s together with positional argument `%s` (index %d) or a later one being passed'%(when_passed, Spos[j]['name'], j)) if j>=n_req else when_passed,
                  detail='Meta parameter `%s` sits at position %d, which receives schema positional `%s`; when `%s` is also passed by name -> TypeError multiple values; otherwise it holds the value of `%s`'%(k['name'],j,Spos[j]['name'],k['name'],Spos[j]['name'])))
            else:
                issues.append(dict(kind='kwonly_as_positional', real=False, arg=k['name'], detail='schema keyword-only, Meta positional-or-keyword: binds by name, harmless'))
    # schema positional bound to py positional with other name
    for i,a in enumerate(Spos[:len(PP)]):
        p=PP[i]
        if p['name']!=a['name']:
            other=[x for x in S if x['name']==p['name']]
            issues.append(dict(kind='pos_renamed', real=False, arg=a['name'], param=p['name'], swapped=bool(other), detail='positional %d: schema `%s`, Meta `%s`%s'%(i,a['name'],p['name'],' (Meta name is another schema argument: order differs)' if other else '')))
    # python extra params beyond schema with defaults (harmless)
    for i,p in enumerate(PP[len(Spos):],len(Spos)):
        if p['has_default'] and not any(k['name']==p['name'] for k in K):
            issues.append(dict(kind='py_extra_optional', real=False, arg=p['name'], detail='Meta has extra optional parameter `%s` (never fed)'%p['name']))
    for p in PK:
        if p['has_default'] and not any(k['name']==p['name'] for k in K):
            issues.append(dict(kind='py_extra_optional', real=False, arg=p['name'], detail='Meta has extra optional keyword-only parameter `%s` (never fed)'%p['name']))
    # defaults
    for i,a in enumerate(S):
        if not a['has_default']: continue
        if a['kwonly']: p=byname.get(a['name'])
        else: p=PP[i] if i<len(PP) else None
        if p is None or not p['has_default']: continue
        if a['kwonly'] and p['kind']=='pos' and PP.index(p)<len(Spos): continue
        sv=sval(a['default']); pv=pval(p['default'])
        if not same(sv,pv,a['type']):
            r=reads(meta,p['name'])
            issues.append(dict(kind='default_diff', real=None, arg=a['name'], param=p['name'], schema_default=a['default'], meta_default=p['default'], body_reads=r,
                detail='when `%s` is omitted the Meta body sees %s instead of schema default %s; body %s the parameter'%(a['name'],p['default'],a['default'],'reads' if r else 'never reads')))
    return issues
def own_returns(fn):
    out=[]
    def visit(n):
        for c in ast.iter_child_nodes(n):
            if isinstance(c,(ast.FunctionDef,ast.Lambda,ast.AsyncFunctionDef)): continue
            if isinstance(c,ast.Return): out.append(c)
            visit(c)
    visit(fn); return out
def classify(r, fn):
    v=r.value
    if v is None: return 0
    if isinstance(v,ast.Constant) and v.value is None: return 0
    if isinstance(v,ast.Tuple): return len(v.elts)
    if isinstance(v,ast.List): return 'list%d'%len(v.elts)
    if isinstance(v,ast.Call):
        f=ast.unparse(v.func)
        if f.startswith('torch.') or f.endswith('.new_empty') or f.endswith('empty_like') or f.endswith('.clone') or f in('torch.empty',) : return 1
        return '?call:'+f
    if isinstance(v,ast.Name):
        # look for assignment of that name in fn
        tgt=v.id; kinds=set()
        for n in ast.walk(fn):
            if isinstance(n,ast.Assign) and any(isinstance(t,ast.Name) and t.id==tgt for t in n.targets):
                if isinstance(n.value,ast.Tuple): kinds.add(len(n.value.elts))
                elif isinstance(n.value,ast.Call) and (ast.unparse(n.value.func).startswith('torch.') or 'empty' in ast.unparse(n.value.func)): kinds.add(1)
                elif isinstance(n.value,(ast.List,ast.ListComp)): kinds.add('list')
                else: kinds.add('?')
        if tgt in [a.arg for a in fn.args.args+fn.args.kwonlyargs]: kinds.add('param')
        return '?name:%s%s'%(tgt,sorted(map(str,kinds)))
    if isinstance(v,ast.IfExp): return '?ifexp'
    return '?'+type(v).__name__

if __name__ == "__main__":
    for m in metas:
        if m['lib'] != 'm' or m['op'] not in schemas:
            continue
        sch = parse_schema(schemas[m['op']]['func'])
        for i in analyse(m, sch):
            if i['real']:
                print("REAL   %-40s L%-5d %-28s %s | %s" % (m['op'], m['line'], i['kind'], i['detail'], i['when']))
        nret = sch['nret']; rt = sch['rets']
        for r in own_returns(m['node']):
            c = classify(r, m['node'])
            if isinstance(c, int) and c != nret and not (nret == 1 and rt[0].endswith('[]')):
                print("RETURN %-40s L%-5d returns %d value(s), schema %d" % (m['op'], r.lineno, c, nret))
            elif nret == 0 and isinstance(c, str) and 'param' in c:
                print("RETURN %-40s L%-5d returns %s, schema '-> ()' needs None" % (m['op'], r.lineno, c))
