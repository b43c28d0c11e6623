{{/* Chart name. */}}
{{- define "mongobench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-wide full name. */}}
{{- define "mongobench.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Standard labels. */}}
{{- define "mongobench.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "mongobench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Standard labels of the chart's objects that are not the manager's
(the loaders' PodMonitor, the dashboard), with their own component.
Call with (dict "root" $ "component" "dashboard"). */}}
{{- define "mongobench.componentLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "mongobench.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/* Selector labels of the manager's pods. */}}
{{- define "mongobench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mongobench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end }}

{{- define "mongobench.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mongobench.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Images default to the chart's appVersion. */}}
{{- define "mongobench.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "mongobench.loaderImage" -}}
{{- printf "%s:%s" .Values.loaderImage.repository (default .Chart.AppVersion .Values.loaderImage.tag) }}
{{- end }}

{{/* The namespace a namespace-scoped manager watches. */}}
{{- define "mongobench.watchNamespace" -}}
{{- if eq .Values.rbac.scope "namespace" }}
{{- default .Release.Namespace .Values.watchNamespace }}
{{- end }}
{{- end }}
