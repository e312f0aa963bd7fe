// The MyApplication reconciler, written as a controller-runtime user would,
// doing what the Rust example's `controller/` does: a Deployment
// `<name>-deployment` and a Service `<name>-service` with a controller
// owner reference, drift corrected with an update, children of an earlier
// incarnation deleted by uid, status (Ready/Progressing/Failed conditions)
// merge-patched only when it changed, events through the events.k8s.io/v1
// recorder. Reads come from the manager's cache.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

const (
	manager       = "my-application-controller"
	containerName = "my-application"
	conflictRetry = 30 * time.Second
)

// reconciler holds the manager's client (cache reads, direct writes) and
// the event recorder.
type reconciler struct {
	client   client.Client
	recorder recorder.EventRecorder
}

func labels(app string) map[string]string {
	return map[string]string{
		"app":                          "my-application",
		"myapplication_cr":             app,
		"app.kubernetes.io/managed-by": manager,
	}
}

func selectorLabels(app string) map[string]string {
	return map[string]string{"app": "my-application", "myapplication_cr": app}
}

func selectorString(app string) string {
	l := selectorLabels(app)
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}

func ownerRef(app *MyApplication) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         groupVersion.String(),
		Kind:               "MyApplication",
		Name:               app.Name,
		UID:                app.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

func childMeta(name string, app *MyApplication) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       app.Namespace,
		Labels:          labels(app.Name),
		OwnerReferences: []metav1.OwnerReference{ownerRef(app)},
	}
}

func containerPorts(port int32) []corev1.ContainerPort {
	return []corev1.ContainerPort{{ContainerPort: port, Protocol: corev1.ProtocolTCP}}
}

func desiredDeployment(app *MyApplication) *appsv1.Deployment {
	replicas := app.Spec.Replicas
	return &appsv1.Deployment{
		ObjectMeta: childMeta(app.Name+"-deployment", app),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selectorLabels(app.Name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels(app.Name)},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  containerName,
					Image: app.Spec.Image,
					Ports: containerPorts(app.Spec.Port),
				}}},
			},
		},
	}
}

func servicePort(port int32) corev1.ServicePort {
	return corev1.ServicePort{
		Name:       "http",
		Port:       port,
		TargetPort: intstr.FromInt32(port),
		Protocol:   corev1.ProtocolTCP,
	}
}

func desiredService(app *MyApplication) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: childMeta(app.Name+"-service", app),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selectorLabels(app.Name),
			Ports:    []corev1.ServicePort{servicePort(app.Spec.Port)},
		},
	}
}

// mergeLabels adds want to *have, keeping labels others set.
func mergeLabels(have *map[string]string, want map[string]string) bool {
	if *have == nil {
		*have = map[string]string{}
	}
	changed := false
	for k, v := range want {
		if (*have)[k] != v {
			(*have)[k] = v
			changed = true
		}
	}
	return changed
}

// correctDeployment edits d towards app (replicas, image, port, labels);
// true if anything changed.
func correctDeployment(d *appsv1.Deployment, app *MyApplication) bool {
	changed := mergeLabels(&d.Labels, labels(app.Name))
	if d.Spec.Replicas == nil || *d.Spec.Replicas != app.Spec.Replicas {
		r := app.Spec.Replicas
		d.Spec.Replicas = &r
		changed = true
	}
	changed = mergeLabels(&d.Spec.Template.Labels, labels(app.Name)) || changed
	containers := d.Spec.Template.Spec.Containers
	for i := range containers {
		if containers[i].Name != containerName {
			continue
		}
		if containers[i].Image != app.Spec.Image {
			containers[i].Image = app.Spec.Image
			changed = true
		}
		ports := containers[i].Ports
		if len(ports) != 1 || ports[0].ContainerPort != app.Spec.Port {
			containers[i].Ports = containerPorts(app.Spec.Port)
			changed = true
		}
		return changed
	}
	d.Spec.Template.Spec.Containers = desiredDeployment(app).Spec.Template.Spec.Containers
	return true
}

// correctService edits s towards app (selector, port, labels).
func correctService(s *corev1.Service, app *MyApplication) bool {
	changed := mergeLabels(&s.Labels, labels(app.Name))
	if !equality.Semantic.DeepEqual(s.Spec.Selector, selectorLabels(app.Name)) {
		s.Spec.Selector = selectorLabels(app.Name)
		changed = true
	}
	ports := s.Spec.Ports
	if len(ports) != 1 || ports[0].Port != app.Spec.Port || ports[0].TargetPort != intstr.FromInt32(app.Spec.Port) {
		port := servicePort(app.Spec.Port)
		if len(ports) > 0 {
			port = ports[0]
			port.Port = app.Spec.Port
			port.TargetPort = intstr.FromInt32(app.Spec.Port)
		}
		s.Spec.Ports = []corev1.ServicePort{port}
		changed = true
	}
	return changed
}

// fromEarlierIncarnation: child is controlled by a deleted MyApplication
// of the same name.
func fromEarlierIncarnation(child metav1.Object, app *MyApplication) bool {
	ref := metav1.GetControllerOf(child)
	if ref == nil {
		return false
	}
	group := strings.SplitN(ref.APIVersion, "/", 2)[0]
	return ref.Kind == "MyApplication" && group == groupVersion.Group && ref.Name == app.Name && ref.UID != app.UID
}

func isControlledBy(child metav1.Object, app *MyApplication) bool {
	ref := metav1.GetControllerOf(child)
	return ref != nil && ref.UID == app.UID
}

func condition(t string, holds bool, reason, message string) ApplicationCondition {
	status := "False"
	if holds {
		status = "True"
	}
	return ApplicationCondition{Type: t, Status: status, Reason: reason, Message: message}
}

// setCondition keeps lastTransitionTime unless the status flips.
func setCondition(conditions *[]ApplicationCondition, c ApplicationCondition, now metav1.Time) {
	for i := range *conditions {
		existing := &(*conditions)[i]
		if existing.Type != c.Type {
			continue
		}
		if existing.Status != c.Status || existing.LastTransitionTime.IsZero() {
			existing.LastTransitionTime = now
		}
		existing.Status, existing.Reason, existing.Message = c.Status, c.Reason, c.Message
		return
	}
	c.LastTransitionTime = now
	*conditions = append(*conditions, c)
}

// observed is what the reconcile saw: a Deployment, or a conflict.
type observed struct {
	deployment   *appsv1.Deployment
	conflictKind string
	conflictName string
}

func computeStatus(app *MyApplication, seen observed, now metav1.Time) *MyApplicationStatus {
	status := &MyApplicationStatus{}
	if app.Status != nil {
		app.Status.DeepCopyInto(status)
	}
	generation := app.Generation
	status.ObservedGeneration = &generation
	selector := selectorString(app.Name)
	status.Selector = &selector
	want := app.Spec.Replicas
	var ready, progressing, failed ApplicationCondition
	if seen.conflictKind != "" {
		message := fmt.Sprintf("%s %s exists and is not controlled by this MyApplication", seen.conflictKind, seen.conflictName)
		zero := int32(0)
		status.AvailableReplicas = &zero
		ready = condition("Ready", false, "ErrResourceExists", message)
		progressing = condition("Progressing", false, "ErrResourceExists", message)
		failed = condition("Failed", true, "ErrResourceExists", message)
	} else {
		var ds appsv1.DeploymentStatus
		var generation int64
		if d := seen.deployment; d != nil {
			ds, generation = d.Status, d.Generation
		}
		available := ds.AvailableReplicas
		status.AvailableReplicas = &available
		observedLatest := seen.deployment != nil && ds.ObservedGeneration >= generation
		isReady := observedLatest && available >= want && ds.UpdatedReplicas >= want
		progress := fmt.Sprintf("%d/%d replicas available", available, want)
		var deadline *appsv1.DeploymentCondition
		for i := range ds.Conditions {
			c := &ds.Conditions[i]
			if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
				deadline = c
			}
		}
		switch {
		case deadline != nil:
			message := deadline.Message
			if message == "" {
				message = "the rollout exceeded its progress deadline"
			}
			ready = condition("Ready", false, "ProgressDeadlineExceeded", progress)
			progressing = condition("Progressing", false, "ProgressDeadlineExceeded", message)
			failed = condition("Failed", true, "ProgressDeadlineExceeded", message)
		case isReady:
			ready = condition("Ready", true, "DeploymentAvailable", progress)
			progressing = condition("Progressing", false, "RolloutComplete", progress)
			failed = condition("Failed", false, "Healthy", "")
		default:
			ready = condition("Ready", false, "RollingOut", progress)
			progressing = condition("Progressing", true, "RollingOut", progress)
			failed = condition("Failed", false, "Healthy", "")
		}
	}
	for _, c := range []ApplicationCondition{ready, progressing, failed} {
		setCondition(&status.Conditions, c, now)
	}
	return status
}

func isReady(s *MyApplicationStatus) bool {
	if s == nil {
		return false
	}
	for _, c := range s.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True"
		}
	}
	return false
}

func (r *reconciler) event(app *MyApplication, kind, reason, action, format string, args ...any) {
	r.recorder.Eventf(app, nil, kind, reason, action, format, args...)
}

// deleteEarlier deletes a child left by an earlier incarnation, by uid.
func (r *reconciler) deleteEarlier(ctx context.Context, app *MyApplication, kind string, child client.Object) error {
	uid := child.GetUID()
	if err := r.client.Delete(ctx, child, client.Preconditions{UID: &uid}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	r.event(app, corev1.EventTypeNormal, "Replaced", "Delete", "deleted %s %s of an earlier MyApplication of this name", kind, child.GetName())
	return nil
}

// Reconcile brings one MyApplication's children and status in line.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &MyApplication{}
	if err := r.client.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	var conflictKind, conflictName string

	deploymentName := app.Name + "-deployment"
	var deployment *appsv1.Deployment
	existing := &appsv1.Deployment{}
	err := r.client.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: deploymentName}, existing)
	switch {
	case apierrors.IsNotFound(err):
		d := desiredDeployment(app)
		if err := r.client.Create(ctx, d); err != nil {
			return ctrl.Result{}, err
		}
		r.event(app, corev1.EventTypeNormal, "Created", "Create", "created Deployment %s", deploymentName)
		deployment = d
	case err != nil:
		return ctrl.Result{}, err
	case fromEarlierIncarnation(existing, app):
		if err := r.deleteEarlier(ctx, app, "Deployment", existing); err != nil {
			return ctrl.Result{}, err
		}
	case !isControlledBy(existing, app):
		conflictKind, conflictName = "Deployment", deploymentName
	default:
		fixed := existing.DeepCopy()
		if correctDeployment(fixed, app) {
			if err := r.client.Update(ctx, fixed); err != nil {
				return ctrl.Result{}, err
			}
			r.event(app, corev1.EventTypeNormal, "Updated", "Update", "corrected Deployment %s", deploymentName)
		}
		deployment = fixed
	}

	serviceName := app.Name + "-service"
	service := &corev1.Service{}
	err = r.client.Get(ctx, types.NamespacedName{Namespace: app.Namespace, Name: serviceName}, service)
	switch {
	case apierrors.IsNotFound(err):
		if err := r.client.Create(ctx, desiredService(app)); err != nil {
			return ctrl.Result{}, err
		}
		r.event(app, corev1.EventTypeNormal, "Created", "Create", "created Service %s", serviceName)
	case err != nil:
		return ctrl.Result{}, err
	case fromEarlierIncarnation(service, app):
		if err := r.deleteEarlier(ctx, app, "Service", service); err != nil {
			return ctrl.Result{}, err
		}
	case !isControlledBy(service, app):
		if conflictKind == "" {
			conflictKind, conflictName = "Service", serviceName
		}
	default:
		fixed := service.DeepCopy()
		if correctService(fixed, app) {
			if err := r.client.Update(ctx, fixed); err != nil {
				return ctrl.Result{}, err
			}
			r.event(app, corev1.EventTypeNormal, "Updated", "Update", "corrected Service %s", serviceName)
		}
	}

	seen := observed{deployment: deployment, conflictKind: conflictKind, conflictName: conflictName}
	status := computeStatus(app, seen, metav1.Now())
	if app.Status == nil || !equality.Semantic.DeepEqual(app.Status, status) {
		body, err := json.Marshal(map[string]any{"status": status})
		if err != nil {
			return ctrl.Result{}, err
		}
		wasReady := isReady(app.Status)
		if err := r.client.Status().Patch(ctx, app, client.RawPatch(types.MergePatchType, body)); err != nil {
			return ctrl.Result{}, err
		}
		if !wasReady && isReady(status) {
			r.event(app, corev1.EventTypeNormal, "Synced", "Reconcile", "all replicas are available")
		}
	}
	if conflictKind != "" {
		r.event(app, corev1.EventTypeWarning, "ErrResourceExists", "Reconcile", "%s %s already exists and is not managed by this MyApplication", conflictKind, conflictName)
		return ctrl.Result{RequeueAfter: conflictRetry}, nil
	}
	return ctrl.Result{}, nil
}
